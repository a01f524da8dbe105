"""A minimal authsvc client in Python: the wire envelope with Fernet (python3-cryptography) over
HTTP (python3-requests). The request is JSON -> Fernet token -> standard base64, POSTed to /; the
reply comes back the same way. See docs/protocol.md and docs/schemas/actions.schema.json."""

import base64
import json
import secrets

import requests
from cryptography.fernet import Fernet, MultiFernet


class AuthsvcError(Exception):
    """A transport problem (HTTP status other than 200, a reply to another request)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class Authsvc:
    def __init__(self, url, secret, timeout=5.0, reply_ttl=120):
        # `secret` may hold several keys separated by ';': the first encrypts, all decrypt.
        keys = [Fernet(k.strip()) for k in secret.split(";") if k.strip()]
        self.fernet = MultiFernet(keys)
        self.url = url
        self.timeout = timeout
        self.reply_ttl = reply_ttl
        self.http = requests.Session()

    def request(self, action, body, client_ip):
        """Sends one action; returns the decrypted reply {success, response, messages, reqid, ...}."""
        reqid = secrets.token_urlsafe(8)
        envelope = {"request": action, "body": body, "reqid": reqid, "client_ipaddr": client_ip}
        token = self.fernet.encrypt(json.dumps(envelope).encode("utf-8"))
        answer = self.http.post(
            self.url,
            data=base64.b64encode(token),
            headers={"Content-Type": "text/plain; charset=utf-8"},
            timeout=self.timeout,
        )
        if answer.status_code != 200:
            raise AuthsvcError(f"authsvc answered {answer.status_code}: {answer.text.strip()[:200]}", answer.status_code)
        reply = json.loads(self.fernet.decrypt(base64.b64decode(answer.content), ttl=self.reply_ttl))
        if reply.get("reqid") != reqid:
            raise AuthsvcError("authsvc reply answers another request (reqid differs)")
        return reply
