"""What keeps a session safe: the URL policy, redaction of page-supplied text, the upload policy and the
confirmation gate for high-impact actions. The executor applies them; none of them drives a browser."""
