"""Email play: compose a turn's message, send it by SMTP, read saves out of mail.

message   the message for a save: recipients, subject, body, board, attachment
smtp      sending through a server (STARTTLS or TLS), passwords from env or a command
inbox     finding, verifying and filing saves in .eml files, mbox and Maildir
profile   this home's From address and SMTP settings (never a password)

Above the session: mail uses it to verify what it sends and receives.
"""

from pbem._imports import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "compose": "message", "as_text": "message", "write_eml": "message",
    "describe_entry": "message", "find_saves": "message", "eml_name": "message",
    "MailConfigError": "message", "MAX_ATTACHMENT_BYTES": "message",
    "send": "smtp", "settings": "smtp", "MailServerError": "smtp",
    "scan": "inbox", "InboxReport": "inbox",
    "Profile": "profile",
})
