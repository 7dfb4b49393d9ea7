"""Team mode for page tests: sign-in configured, and a viewer and an editor signed in."""

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "not-a-real-secret",
    "client_id": "tokendesk",
    "client_secret": "not-a-real-secret",
    "server_metadata_url": "http://localhost:9400/.well-known/openid-configuration",
}
TEAM = {"auth": AUTH, "tokendesk": {"roles": {"lee@example.com": "editor"}}}
VIEWER = {"is_logged_in": True, "email": "pat@example.com", "email_verified": True}
EDITOR = {"is_logged_in": True, "email": "lee@example.com", "email_verified": True}
