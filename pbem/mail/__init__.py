"""Email play: compose a turn's message, send it by SMTP, read saves out of mail.

message   the message for a save: recipients, subject, body, board, attachment
smtp      sending through a server (STARTTLS or TLS), passwords from env or a command
inbox     finding, verifying and filing saves in .eml files, mbox, Maildir and IMAP
imap      reading an IMAP mailbox, read-only (imaplib; TLS or STARTTLS)
seen      what inbox has read from each mailbox, so it reads only what is new
profile   this home's From address, SMTP/IMAP settings, sources (never a password)
answer    entries that answer themselves (PROTOCOL.md section 12)
outbox    signed saves still to be mailed
sync      the daily loop: read, answer, send, list what waits

Above the session: mail uses it to verify what it sends and receives.
"""
