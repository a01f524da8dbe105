"""Worked example: an authenticator app (TOTP) added to an account, then a login in two steps.

    AUTHSVC_SECRET="$(cat .authsvc/.authsvc-secret-key)" EXAMPLE_PASSWORD='…' \\
        python3 examples/python/second_factor.py http://127.0.0.1:13431/ alice@example.org

The account must be active and have no second factor yet. Prints one line per action: its name and whether it
succeeded; exits 1 at the first unexpected answer. The codes are computed here as an authenticator app computes them
(RFC 6238: HMAC-SHA-1, 30-second steps, 6 digits), from the secret user-totp-new answered."""

import base64
import hashlib
import hmac
import os
import struct
import sys
import time

from authsvc_client import Authsvc

IP = "198.51.100.20"
AGENT = "python example"


def totp(secret_base32, at):
    """The 6-digit code of the 30-second step `at` (a Unix time) falls in."""
    key = base64.b32decode(secret_base32 + "=" * (-len(secret_base32) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(at // 30)), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 1_000_000).zfill(6)


def step(authsvc, action, body, expect=True):
    reply = authsvc.request(action, body, IP)
    print(action, "ok" if reply["success"] else "failed: " + reply["failure_reason"])
    if reply["success"] != expect:
        sys.exit(1)
    return reply["response"]


def new_session(authsvc, user_id=None):
    body = {"ip_address": IP, "user_agent": AGENT, "user_id": user_id, "expires": 1, "extra_info_json": {}}
    return step(authsvc, "session-new", body)["session_token"]


def main(url, email, password):
    authsvc = Authsvc(url, os.environ["AUTHSVC_SECRET"])

    # Without a second factor a login takes one step; then the frontend opens the user's own session.
    user_id = step(authsvc, "user-login", {"session_token": new_session(authsvc), "email": email, "password": password})[
        "user_id"
    ]
    own = {"user_id": user_id, "session_token": new_session(authsvc, user_id)}

    # Adding an authenticator app: the app reads the secret (from the QR code, qr_svg), the user types a code.
    # A code works once, and the login below uses this step's code, so the enrolment types the previous step's
    # (still accepted: one step either side); a person would simply wait for the app's next code.
    started = step(authsvc, "user-totp-new", {**own, "name": "python example"})
    confirmed = step(
        authsvc,
        "user-totp-confirm",
        {**own, "factor_id": started["factor_id"], "code": totp(started["secret"], time.time() - 30)},
    )
    print("recovery_codes", len(confirmed["recovery_codes"]))

    # From now on a login takes two steps: the password answers second_factor_required with a ticket...
    session = new_session(authsvc)
    first = authsvc.request("user-login", {"session_token": session, "email": email, "password": password}, IP)
    print("user-login", "ok" if first["success"] else "failed: " + first["failure_reason"])
    if first["success"] or "login_ticket" not in first["response"]:
        sys.exit(1)
    print("methods", ",".join(first["response"]["methods"]))

    # ...and the second step, on the same session, answers what a login answers.
    done = step(
        authsvc,
        "user-login-secondfactor",
        {
            "session_token": session,
            "login_ticket": first["response"]["login_ticket"],
            "method": "totp",
            "code": totp(started["secret"], time.time()),
        },
    )
    print("logged in as", done["user_id"], done["user_role"])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], os.environ["EXAMPLE_PASSWORD"])
