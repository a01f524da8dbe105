"""Worked example: a session, then API keys of both kinds issued, verified, refreshed and revoked,
with the payloads the reference's Python frontend sends (client_ipaddr also in the body, apiversion
as a string, not_valid_before as a float).

    AUTHSVC_SECRET="$(cat .authsvc/.authsvc-secret-key)" python3 examples/python/api_keys.py \\
        http://127.0.0.1:13431/ <user_id> <user_role>

Prints one line per action: its name and whether it succeeded; exits 1 at the first unexpected answer."""

import json
import os
import sys

from authsvc_client import Authsvc

IP = "198.51.100.20"
AGENT = "python example"


def step(authsvc, action, body, expect=True):
    reply = authsvc.request(action, {"client_ipaddr": IP, **body}, IP)
    print(action, "ok" if reply["success"] else "failed: " + reply["failure_reason"])
    if reply["success"] != expect:
        sys.exit(1)
    return reply["response"]


def main(url, user_id, user_role):
    authsvc = Authsvc(url, os.environ["AUTHSVC_SECRET"])
    owner = {"user_id": user_id, "user_role": user_role}
    key_items = {
        "issuer": "authnzerver-frontend",
        "audience": "api.example.org",
        "subject": "/api/v1/data",
        "apiversion": "1",
    }

    # A session-tied key: its session's user, IP address and user agent must be the request's.
    session = step(
        authsvc,
        "session-new",
        {"ip_address": IP, "user_agent": AGENT, "user_id": user_id, "expires": 1, "extra_info_json": {}},
    )
    issued = step(
        authsvc,
        "apikey-new",
        {
            **key_items,
            "expires_days": 30,
            "not_valid_before": 0.0,
            **owner,
            "ip_address": IP,
            "user_agent": AGENT,
            "session_token": session["session_token"],
        },
    )
    key = json.loads(issued["apikey"])
    step(authsvc, "apikey-verify", {"apikey_dict": key, **owner})
    step(authsvc, "apikey-revoke", {"apikey_dict": key, **owner})
    step(authsvc, "apikey-verify", {"apikey_dict": key, **owner}, expect=False)

    # A key tied to no session, with a refresh token.
    lifetimes = {"expires_seconds": 600, "not_valid_before": 0.0, "refresh_expires": 3600, "refresh_nbf": 0.0}
    issued = step(authsvc, "apikey-new-nosession", {**key_items, **lifetimes, **owner, "ip_address": IP})
    first = json.loads(issued["apikey"])
    step(authsvc, "apikey-verify-nosession", {"apikey_dict": first, **owner})
    refreshed = step(
        authsvc,
        "apikey-refresh-nosession",
        {"apikey_dict": first, **owner, "refresh_token": issued["refresh_token"], "ip_address": IP, **lifetimes},
    )
    second = json.loads(refreshed["apikey"])
    step(authsvc, "apikey-verify-nosession", {"apikey_dict": first, **owner}, expect=False)
    revoked = step(authsvc, "apikey-revokeall-nosession", {"apikey_dict": second, **owner})
    print("revoked_keys", revoked["revoked_keys"])


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
