"""Sign-in and roles on the dashboard.

With an ``[auth]`` section in ``secrets.toml`` the dashboard is in team mode: every page requires
sign-in through Streamlit's OpenID Connect sign-in (``st.login``), and the person's role comes
from the ``[tokendesk]`` role map (``tokendesk.access``). Without it (the default) the dashboard
is in single-user mode: no sign-in, the local user with every right, as an embedded install
always was.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from app.safe import plain
from tokendesk.access import (
    AccessConfigError,
    Action,
    Principal,
    Role,
    RoleMap,
    groups_from_claim,
    local_user,
    parse_role_map,
)

#: Who is asking when team mode is on and nobody is signed in (never shown data: the gate stops
#: the page first; this only makes every check fail closed).
NOBODY = Principal("nobody (not signed in)", Role.VIEWER, signed_in=False, sees_negotiated=False)


def _secrets() -> dict[str, Any]:
    """The parsed secrets files; empty when there are none (the single-user default)."""
    if not st.secrets.load_if_toml_exists():
        return {}
    return st.secrets.to_dict()


def team_mode() -> bool:
    """True when sign-in is configured (an ``[auth]`` section in secrets.toml)."""
    return "auth" in _secrets()


def role_map() -> RoleMap:
    """The configured role map; raises ``AccessConfigError`` naming a bad key."""
    return parse_role_map(_secrets().get("tokendesk"))


def current_user() -> Principal:
    """Who this browser session acts for: the signed-in person in team mode, else the local
    user. Every write and every read of confidential rows asks this."""
    if not team_mode():
        return local_user()
    if not st.user.is_logged_in:
        return NOBODY
    try:
        roles = role_map()
    except AccessConfigError:
        return NOBODY  # a broken role map grants nothing; the gate says what is wrong
    claims = st.user.to_dict()
    identity = roles.identity(claims)
    if identity.email is None:
        return NOBODY  # no role without an address the provider vouches for; the gate says why
    return roles.principal(identity.email, groups_from_claim(claims.get(roles.group_claim)))


def identity_problem() -> str:
    """Why the signed-in person has no verified identity ('' when they have one)."""
    try:
        return role_map().identity(st.user.to_dict()).problem
    except AccessConfigError:
        return ""


def _providers() -> list[str]:
    """Named identity providers (``[auth.NAME]`` sections); empty for the single default one."""
    auth = _secrets().get("auth", {})
    return [name for name, value in auth.items() if isinstance(value, dict)]


def require_sign_in() -> Principal:
    """Stop the page unless the visitor may see it; return who they are.

    In team mode an unsigned visitor is sent to the identity provider (with several providers,
    asked to pick one); a role map that cannot be read stops every page with what to fix.
    """
    if not team_mode():
        return local_user()
    try:
        role_map()
    except AccessConfigError as exc:
        st.error(f"Sign-in is configured, but the role settings cannot be used: {plain(exc)}.")
        st.stop()
    if not st.user.is_logged_in:
        providers = _providers()
        st.title("tokendesk")
        if len(providers) > 1:
            st.write("Sign in to continue.")
            for name in providers:
                if st.button(f"Sign in with {name}", key=f"sign_in_{name}"):
                    st.login(name)
        else:
            st.write("Signing you in…")
            st.login(providers[0] if providers else None)
        st.stop()
    user = current_user()
    if user is NOBODY:
        problem = identity_problem() or "your identity provider sent no verified e-mail address"
        st.error(
            f"No role can be given: {plain(problem)}. Roles are given only to an e-mail address"
            " the provider has verified. Sign out and sign in with an account whose address is"
            " verified, or ask an admin to set verified_email_claim in secrets.toml."
        )
        if st.button("Sign out", key="sign_out_no_email"):
            st.logout()
        st.stop()
    return user


def sidebar(user: Principal, hidden_negotiated: int) -> None:
    """Who is signed in (or that this is single-user mode), a sign-out button, and what the
    role hides."""
    with st.sidebar:
        if not user.signed_in:
            st.caption(
                f"Single-user mode: no sign-in is configured; changes are recorded as"
                f" {plain(user.name)}. Team sign-in is set up in secrets.toml (see the README)."
            )
            return
        st.caption(f"Signed in as **{plain(user.name)}** · role: {user.role.value}")
        if hidden_negotiated:
            st.caption(
                f"{hidden_negotiated} negotiated quote(s) are hidden: the {user.role.value} role"
                " may not see negotiated quotes."
            )
        if st.button("Sign out", key="sign_out"):
            st.logout()
        if user.may(Action.SEE_ROLE_MAP):
            with st.expander("Roles"):
                st.dataframe(
                    [{"who": who, "role": role} for who, role in role_map().entries()],
                    hide_index=True,
                )
                st.caption(
                    "Roles are set in the [tokendesk.roles] section of secrets.toml; a change"
                    " applies at the next page load."
                )


def why_not(action: Action) -> str | None:
    """None when the person may do ``action``; else the sentence a disabled control shows."""
    return current_user().why_not(action)
