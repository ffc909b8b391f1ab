"""The last step of a submission's path: telling its LMS, by signed webhook, that it is final."""
from grader.notify.webhooks import Notifier, sign, verify

__all__ = ["Notifier", "sign", "verify"]
