"""Roles, the role map read from configuration, and the checks every write makes."""

import pytest

from tokendesk import access
from tokendesk.access import (
    AccessConfigError,
    AccessDenied,
    Action,
    Principal,
    Role,
    groups_from_claim,
    parse_role_map,
)

CONFIG = {
    "roles": {
        "Ana@Example.com": "admin",
        "pat@example.com": "viewer",
        "group:procurement": "editor",
        "group:staff": "viewer",
    }
}


def test_an_email_entry_decides_alone_and_is_case_blind():
    roles = parse_role_map(CONFIG)
    assert roles.role_for("ana@example.com") is Role.ADMIN
    assert roles.role_for("ANA@EXAMPLE.COM", ["staff"]) is Role.ADMIN
    # An e-mail entry can also keep a person below the role of their groups.
    assert roles.role_for("pat@example.com", ["procurement"]) is Role.VIEWER


def test_the_highest_group_role_applies_then_the_default():
    roles = parse_role_map(CONFIG)
    assert roles.role_for("lee@example.com", ["staff", "procurement"]) is Role.EDITOR
    assert roles.role_for("lee@example.com", ["staff"]) is Role.VIEWER
    assert roles.role_for("new@example.com", ["unknown-group"]) is Role.VIEWER
    assert parse_role_map({"default_role": "editor"}).role_for("x@example.com") is Role.EDITOR


def test_no_configuration_means_viewer_for_everyone_signed_in():
    roles = parse_role_map(None)
    user = roles.principal("someone@example.com")
    assert user.role is Role.VIEWER and user.signed_in and not user.sees_negotiated


def test_negotiated_quotes_are_seen_by_editors_and_admins_unless_configured():
    roles = parse_role_map(CONFIG)
    assert roles.principal("ana@example.com").sees_negotiated
    assert roles.principal("lee@example.com", ["procurement"]).sees_negotiated
    assert not roles.principal("lee@example.com", ["staff"]).sees_negotiated
    admins_only = parse_role_map({**CONFIG, "negotiated_quotes": ["admin"]})
    assert not admins_only.principal("lee@example.com", ["procurement"]).sees_negotiated
    assert admins_only.principal("ana@example.com").sees_negotiated


@pytest.mark.parametrize(
    ("role", "allowed"),
    [
        (Role.VIEWER, set()),
        (Role.EDITOR, set(Action) - {Action.SEE_ROLE_MAP}),
        (Role.ADMIN, set(Action)),
    ],
)
def test_each_role_may_do_exactly_its_actions(role, allowed):
    user = Principal("x@example.com", role, signed_in=True)
    assert {action for action in Action if user.may(action)} == allowed


def test_a_refused_action_says_who_which_role_and_what_to_do():
    viewer = Principal("pat@example.com", Role.VIEWER, signed_in=True)
    reason = viewer.why_not(Action.REFRESH_PRICES)
    assert reason == (
        "You are signed in as pat@example.com with the viewer role: refreshing prices needs the"
        " editor or admin role. Ask an admin to change your role."
    )
    with pytest.raises(AccessDenied, match="viewer role: refreshing prices"):
        viewer.require(Action.REFRESH_PRICES)
    editor = Principal("lee@example.com", Role.EDITOR, signed_in=True)
    editor.require(Action.REFRESH_PRICES)
    assert "needs the admin role" in editor.why_not(Action.SEE_ROLE_MAP)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"roles": {"ana@example.com": "owner"}}, "unknown role 'owner'"),
        ({"roles": {"procurement": "editor"}}, "neither an e-mail address nor 'group:NAME'"),
        ({"default_role": "root"}, "default_role: unknown role 'root'"),
        ({"negotiated_quotes": "editor"}, "must be a list of roles"),
        ({"negotiated_quotes": ["buyers"]}, "negotiated_quotes: unknown role 'buyers'"),
        ({"role": {}}, "unknown key(s) role"),
        ({"roles": ["ana@example.com"]}, "must be a table"),
        ({"group_claim": ""}, "group_claim must be a claim name"),
    ],
)
def test_a_bad_role_map_names_the_key_and_the_fix(config, message):
    with pytest.raises(AccessConfigError) as raised:
        parse_role_map(config)
    assert message in str(raised.value)


def test_group_claims_arrive_as_lists_strings_or_nothing():
    assert groups_from_claim(["a", "b"]) == ["a", "b"]
    assert groups_from_claim("a, b c") == ["a", "b", "c"]
    assert groups_from_claim(None) == []


def test_the_local_user_is_as_given_then_the_environment_then_the_os(monkeypatch):
    monkeypatch.setattr(access, "_local_user_override", None)
    monkeypatch.setenv(access.USER_ENV, "ci-importer")
    assert access.local_user_name() == "ci-importer"
    access.set_local_user("nightly-refresh")
    try:
        assert access.local_user() == Principal("nightly-refresh", Role.ADMIN)
    finally:
        access.set_local_user(None)
    monkeypatch.delenv(access.USER_ENV)
    monkeypatch.setattr(access.getpass, "getuser", lambda: "ana")
    assert access.local_user_name() == "ana"


def test_role_map_entries_list_who_has_which_role():
    assert parse_role_map(CONFIG).entries() == [
        ("ana@example.com", "admin"),
        ("pat@example.com", "viewer"),
        ("group:procurement", "editor"),
        ("group:staff", "viewer"),
        ("anyone else signed in", "viewer"),
    ]


# -- identity: a role only from an address the identity provider vouches for ----------------------
ROLES = {"roles": {"cto@example.com": "admin", "kto@example.com": "admin"}}


@pytest.mark.parametrize(
    ("claims", "problem"),
    [
        # The provider sends the address but says it did not verify it (anyone can type one).
        ({"sub": "m-1", "email": "CTO@Example.com", "email_verified": False}, "not true"),
        ({"sub": "m-2", "email": "cto@example.com"}, "not true"),
        ({"sub": "m-3", "email": "cto@example.com", "email_verified": "false"}, "not true"),
        ({"sub": "m-4", "email": "cto@example.com", "email_verified": 1}, "not true"),
        # A subject is an opaque id some providers let the user pick: never an address.
        ({"sub": "cto@example.com"}, "sent no e-mail address"),
        ({"sub": "cto@example.com", "email": ""}, "sent no e-mail address"),
        # Addresses that could pass for another: blanks, controls, format characters, two '@'.
        ({"email": "cto@example.com\u200b", "email_verified": True}, "not a plain address"),
        ({"email": "cto@example.com\nx", "email_verified": True}, "not a plain address"),
        ({"email": "cto@evil@example.com", "email_verified": True}, "not a plain address"),
        ({"email": ["cto@example.com"], "email_verified": True}, "not a plain address"),
    ],
)
def test_no_identity_without_an_address_the_provider_verified(claims, problem):
    identity = parse_role_map(ROLES).identity(claims)
    assert identity.email is None
    assert problem in identity.problem


@pytest.mark.parametrize("verified", [True, "true", "TRUE"])
def test_a_verified_address_gets_its_role_whatever_its_case(verified):
    roles = parse_role_map(ROLES)
    identity = roles.identity(
        {"sub": "x", "email": " CTO@Example.COM ", "email_verified": verified}
    )
    assert identity.email == "cto@example.com"
    assert roles.principal(identity.email).role is Role.ADMIN


def test_look_alike_letters_are_not_folded_onto_a_role_entry():
    # KELVIN SIGN lower-cases to a plain 'k' with str.lower(): "Kto@" must not become kto@.
    roles = parse_role_map(ROLES)
    identity = roles.identity({"email": "\u212ato@example.com", "email_verified": True})
    assert identity.email == "\u212ato@example.com"
    assert roles.role_for(identity.email) is Role.VIEWER
    assert access.normalise_email("K\u0130@Example.com") == "k\u0130@example.com"


def test_a_configured_claim_the_provider_vouches_for_is_used_as_the_address():
    roles = parse_role_map({**ROLES, "verified_email_claim": "upn"})
    assert roles.identity({"sub": "opaque", "upn": "CTO@example.com"}).email == "cto@example.com"
    # Without that claim, the verified e-mail rule still applies.
    assert roles.identity({"sub": "opaque", "email": "cto@example.com"}).email is None
    with pytest.raises(AccessConfigError, match="cannot be 'sub'"):
        parse_role_map({"verified_email_claim": "sub"})
    with pytest.raises(AccessConfigError, match="name of a claim"):
        parse_role_map({"verified_email_claim": ""})


def test_a_role_entry_that_is_not_a_plain_address_is_refused():
    with pytest.raises(AccessConfigError, match="not a plain e-mail address"):
        parse_role_map({"roles": {"cto@example.com\u202e": "admin"}})
