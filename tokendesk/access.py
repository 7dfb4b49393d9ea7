"""Who may do what: the three roles, the role map read from configuration, and the check every
write makes.

Roles build on each other: a **viewer** reads; an **editor** also writes (workspace edits,
benchmark imports, retractions, price refreshes, which also read the quote sheets); an **admin**
may do everything, including seeing the role map. Negotiated quotes are confidential: only the
roles the configuration names see them (editor and admin unless configured otherwise).

Without sign-in (the embedded, single-user default, and the command line) the person at the
keyboard is the local user, with every right: whoever can run tokendesk can open the warehouse
file anyway. The name recorded with each write is then the OS user, or the name given with
``--as`` or ``TOKENDESK_USER``.
"""

from __future__ import annotations

import getpass
import os
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

#: Overrides the name recorded with a command-line write (``--as`` wins over it).
USER_ENV = "TOKENDESK_USER"
#: Role-map keys with this prefix name a group of the identity provider's group claim.
GROUP_PREFIX = "group:"
#: The claim that says the provider checked the ``email`` claim (OpenID Connect Core 5.1).
EMAIL_VERIFIED_CLAIM = "email_verified"
#: Longest e-mail address taken from a claim (RFC 5321 allows 254 characters in a path).
MAX_EMAIL_CHARS = 254


class Role(StrEnum):
    VIEWER = "viewer"
    EDITOR = "editor"
    ADMIN = "admin"


#: Each role's rank: a role has every right of the roles ranked below it.
_RANK = {Role.VIEWER: 0, Role.EDITOR: 1, Role.ADMIN: 2}


class Action(StrEnum):
    """What a person can ask of tokendesk beyond reading; the value reads in a sentence."""

    EDIT_WORKSPACE = "saving or importing a workspace"
    IMPORT_RESULTS = "importing benchmark results"
    RETRACT = "retracting an import"
    REFRESH_PRICES = "refreshing prices"
    WRITE = "writing to the warehouse"
    RECORD_DECISION = "recording a futures-day decision"
    SEE_ROLE_MAP = "seeing the role map"


#: The lowest role allowed each action.
LOWEST_ROLE = {
    Action.EDIT_WORKSPACE: Role.EDITOR,
    Action.IMPORT_RESULTS: Role.EDITOR,
    Action.RETRACT: Role.EDITOR,
    Action.REFRESH_PRICES: Role.EDITOR,
    Action.WRITE: Role.EDITOR,
    Action.RECORD_DECISION: Role.EDITOR,
    Action.SEE_ROLE_MAP: Role.ADMIN,
}

#: Roles that see negotiated quotes unless the configuration says otherwise.
DEFAULT_NEGOTIATED_ROLES = frozenset({Role.EDITOR, Role.ADMIN})


class AccessDenied(PermissionError):
    """An action the acting person's role does not allow; the message says why and what to do."""


class AccessConfigError(ValueError):
    """The role configuration cannot be used; the message names the key and the fix."""


def roles_allowed(action: Action) -> tuple[Role, ...]:
    lowest = _RANK[LOWEST_ROLE[action]]
    return tuple(role for role in Role if _RANK[role] >= lowest)


@dataclass(frozen=True)
class Principal:
    """The person a read or write is made for: the name recorded with a write, and a role."""

    name: str
    role: Role
    #: True for a person signed in through the identity provider; False for the local user.
    signed_in: bool = False
    sees_negotiated: bool = True

    def may(self, action: Action) -> bool:
        return _RANK[self.role] >= _RANK[LOWEST_ROLE[action]]

    def why_not(self, action: Action) -> str | None:
        """None when allowed; otherwise one sentence saying why not and what to do."""
        if self.may(action):
            return None
        allowed = " or ".join(role.value for role in roles_allowed(action))
        return (
            f"You are signed in as {self.name} with the {self.role.value} role: {action.value}"
            f" needs the {allowed} role. Ask an admin to change your role."
        )

    def require(self, action: Action) -> None:
        """Raise :class:`AccessDenied` (before anything is written) unless allowed."""
        reason = self.why_not(action)
        if reason is not None:
            raise AccessDenied(reason)


@dataclass(frozen=True)
class RoleMap:
    """Roles by e-mail address and by group, from the ``[tokendesk]`` configuration section.

    An e-mail entry decides alone (it can also lower a person below their groups' role); else
    the highest role among the person's groups; else the default role.
    """

    emails: Mapping[str, Role] = field(default_factory=dict)
    groups: Mapping[str, Role] = field(default_factory=dict)
    default: Role = Role.VIEWER
    #: The identity-token claim that lists a person's groups.
    group_claim: str = "groups"
    negotiated: frozenset[Role] = DEFAULT_NEGOTIATED_ROLES
    #: A claim the identity provider vouches for as the person's e-mail address without sending
    #: ``email_verified`` (a directory's ``upn``, say); None: only a verified ``email`` counts.
    verified_email_claim: str | None = None

    def role_for(self, email: str | None, groups: Iterable[str] = ()) -> Role:
        key = normalise_email(email) if email else None
        if key is not None and key in self.emails:
            return self.emails[key]
        matched = [self.groups[g] for g in groups if g in self.groups]
        return max(matched, key=_RANK.__getitem__) if matched else self.default

    def principal(self, email: str, groups: Iterable[str] = ()) -> Principal:
        """The signed-in person ``email`` (member of ``groups``)."""
        role = self.role_for(email, groups)
        return Principal(email, role, signed_in=True, sees_negotiated=role in self.negotiated)

    def identity(self, claims: Mapping[str, object]) -> Identity:
        """Who the identity token says this is, only as far as the provider vouches for it."""
        return verified_identity(claims, self.verified_email_claim)

    def entries(self) -> list[tuple[str, str]]:
        """(who, role) rows for display: e-mail addresses, then groups, then the default."""
        rows = [(email, role.value) for email, role in sorted(self.emails.items())]
        rows += [(GROUP_PREFIX + g, role.value) for g, role in sorted(self.groups.items())]
        rows.append(("anyone else signed in", self.default.value))
        return rows


def parse_role_map(section: Mapping[str, object] | None) -> RoleMap:
    """The role map from the ``[tokendesk]`` section of ``secrets.toml`` (None: defaults).

    Keys: ``default_role``, ``group_claim``, ``negotiated_quotes`` (roles that see them),
    ``verified_email_claim`` (a claim the provider vouches for as the e-mail address) and a
    ``roles`` table whose keys are e-mail addresses or ``group:NAME``.
    """
    section = dict(section or {})
    known = {"default_role", "group_claim", "negotiated_quotes", "roles", "verified_email_claim"}
    unknown = sorted(set(section) - known)
    if unknown:
        raise AccessConfigError(
            f"[tokendesk] has unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    default = _role(section.get("default_role", Role.VIEWER.value), "[tokendesk] default_role")
    claim = section.get("group_claim", "groups")
    if not isinstance(claim, str) or not claim.strip():
        raise AccessConfigError("[tokendesk] group_claim must be a claim name such as 'groups'")
    negotiated = section.get("negotiated_quotes", [r.value for r in DEFAULT_NEGOTIATED_ROLES])
    if isinstance(negotiated, str) or not isinstance(negotiated, Iterable):
        raise AccessConfigError(
            "[tokendesk] negotiated_quotes must be a list of roles, e.g. ['editor', 'admin']"
        )
    seeing = frozenset(_role(r, "[tokendesk] negotiated_quotes") for r in negotiated)
    emails: dict[str, Role] = {}
    groups: dict[str, Role] = {}
    roles = section.get("roles", {})
    if not isinstance(roles, Mapping):
        raise AccessConfigError("[tokendesk.roles] must be a table of 'who' = 'role' lines")
    for who, value in roles.items():
        where = f"[tokendesk.roles] {who!r}"
        key = str(who).strip()
        if key.startswith(GROUP_PREFIX) and key[len(GROUP_PREFIX) :].strip():
            groups[key[len(GROUP_PREFIX) :].strip()] = _role(value, where)
        elif "@" in key:
            address = normalise_email(key)
            if address is None:
                raise AccessConfigError(
                    f"{where} is not a plain e-mail address (one '@', no spaces or control"
                    " characters); write it as the identity provider sends it"
                )
            emails[address] = _role(value, where)
        else:
            raise AccessConfigError(
                f"{where} is neither an e-mail address nor 'group:NAME'; write the person's"
                " e-mail address or prefix a group name with 'group:'"
            )
    vouched = section.get("verified_email_claim")
    if vouched is not None and (not isinstance(vouched, str) or not vouched.strip()):
        raise AccessConfigError(
            "[tokendesk] verified_email_claim must be the name of a claim, such as 'upn'"
        )
    if isinstance(vouched, str) and vouched.strip() == "sub":
        raise AccessConfigError(
            "[tokendesk] verified_email_claim cannot be 'sub': a subject identifier is chosen by"
            " the provider's users and is not an e-mail address the provider checked"
        )
    return RoleMap(
        emails, groups, default, claim.strip(), seeing, vouched.strip() if vouched else None
    )


# ASCII letters only: str.lower() would fold look-alikes onto plain letters (KELVIN SIGN 'K'
# becomes 'k'), letting an address the provider verified for someone else match a role entry.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def normalise_email(value: object) -> str | None:
    """An e-mail address as role entries are compared: surrounding blanks removed, ASCII letters
    lower-cased (addresses are matched case-blind, as providers treat them). None when the value
    is not a plain address: not text, not exactly one '@' with text either side, or holding
    blanks, control or format characters (which can disguise one address as another)."""
    if not isinstance(value, str):
        return None
    address = value.strip()
    if not address or len(address) > MAX_EMAIL_CHARS or address.count("@") != 1:
        return None
    local, domain = address.split("@")
    if not local or not domain:
        return None
    if any(ch.isspace() or not ch.isprintable() for ch in address):
        return None
    if any(unicodedata.category(ch) in ("Cf", "Cc", "Co", "Cs") for ch in address):
        return None
    return address.translate(_ASCII_LOWER)


@dataclass(frozen=True)
class Identity:
    """The e-mail address an identity token vouches for (None: none) and, if none, why not."""

    email: str | None
    problem: str = ""


def _is_true(value: object) -> bool:
    # Most providers send a JSON boolean; a few (Cognito among them) send the string "true".
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def verified_identity(claims: Mapping[str, object], vouched_claim: str | None = None) -> Identity:
    """The person's e-mail address from identity-token ``claims``, only where the provider vouches
    for it: the ``email`` claim with ``email_verified`` true, or the configured ``vouched_claim``.

    ``sub`` is never read as an address: it is an opaque identifier, and at some providers the
    user picks it, so a subject ``cto@example.com`` says nothing about who signed in.
    """
    if vouched_claim:
        address = normalise_email(claims.get(vouched_claim))
        if address is not None:
            return Identity(address)
    raw = claims.get("email")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return Identity(None, "your identity provider sent no e-mail address")
    address = normalise_email(raw)
    if address is None:
        return Identity(
            None, "the e-mail address your identity provider sent is not a plain address"
        )
    if not _is_true(claims.get(EMAIL_VERIFIED_CLAIM)):
        return Identity(
            None,
            "your identity provider did not confirm that the e-mail address is verified"
            f" ({EMAIL_VERIFIED_CLAIM} is not true)",
        )
    return Identity(address)


def _role(value: object, where: str) -> Role:
    try:
        return Role(str(value).strip().lower())
    except ValueError:
        raise AccessConfigError(
            f"{where}: unknown role {value!r}; use one of {', '.join(r.value for r in Role)}"
        ) from None


def groups_from_claim(value: object) -> list[str]:
    """A group claim as a list of names: providers send a list, a string or nothing."""
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.replace(",", " ").split() if part.strip()]
    if isinstance(value, Iterable):
        return [str(item) for item in value]
    return [str(value)]


_local_user_override: str | None = None


def set_local_user(name: str | None) -> None:
    """Record writes of this process under ``name`` (the command line's ``--as``)."""
    global _local_user_override
    _local_user_override = name.strip() if name and name.strip() else None


def local_user_name() -> str:
    """Who the local user is: ``--as``, else ``$TOKENDESK_USER``, else the OS user name."""
    if _local_user_override:
        return _local_user_override
    from_env = os.environ.get(USER_ENV, "").strip()
    if from_env:
        return from_env
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in this environment (a bare container)
        return "unknown user"


def local_user() -> Principal:
    """The person at the keyboard of a single-user install or the command line: every right."""
    return Principal(local_user_name(), Role.ADMIN)
