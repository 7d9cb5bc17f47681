"""Email play: compose a turn's message, send it by SMTP, read saves out of mail.

message   the message for a save: recipients, subject, body, board, attachment
smtp      sending through a server (STARTTLS or TLS), passwords from env or a command
inbox     finding, verifying and filing saves in .eml files, mbox and Maildir
profile   this home's From address and SMTP settings (never a password)

Above the session: mail uses it to verify what it sends and receives.
"""
