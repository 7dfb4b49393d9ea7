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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

#: Overrides the name recorded with a command-line write (``--as`` wins over it).
USER_ENV = "TOKENDESK_USER"
#: Role-map keys with this prefix name a group of the identity provider's group claim.
GROUP_PREFIX = "group:"


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
    SEE_ROLE_MAP = "seeing the role map"


#: The lowest role allowed each action.
LOWEST_ROLE = {
    Action.EDIT_WORKSPACE: Role.EDITOR,
    Action.IMPORT_RESULTS: Role.EDITOR,
    Action.RETRACT: Role.EDITOR,
    Action.REFRESH_PRICES: Role.EDITOR,
    Action.WRITE: Role.EDITOR,
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

    def role_for(self, email: str | None, groups: Iterable[str] = ()) -> Role:
        if email and email.strip().lower() in self.emails:
            return self.emails[email.strip().lower()]
        matched = [self.groups[g] for g in groups if g in self.groups]
        return max(matched, key=_RANK.__getitem__) if matched else self.default

    def principal(self, email: str, groups: Iterable[str] = ()) -> Principal:
        """The signed-in person ``email`` (member of ``groups``)."""
        role = self.role_for(email, groups)
        return Principal(email, role, signed_in=True, sees_negotiated=role in self.negotiated)

    def entries(self) -> list[tuple[str, str]]:
        """(who, role) rows for display: e-mail addresses, then groups, then the default."""
        rows = [(email, role.value) for email, role in sorted(self.emails.items())]
        rows += [(GROUP_PREFIX + g, role.value) for g, role in sorted(self.groups.items())]
        rows.append(("anyone else signed in", self.default.value))
        return rows


def parse_role_map(section: Mapping[str, object] | None) -> RoleMap:
    """The role map from the ``[tokendesk]`` section of ``secrets.toml`` (None: defaults).

    Keys: ``default_role``, ``group_claim``, ``negotiated_quotes`` (roles that see them) and a
    ``roles`` table whose keys are e-mail addresses or ``group:NAME``.
    """
    section = dict(section or {})
    known = {"default_role", "group_claim", "negotiated_quotes", "roles"}
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
            emails[key.lower()] = _role(value, where)
        else:
            raise AccessConfigError(
                f"{where} is neither an e-mail address nor 'group:NAME'; write the person's"
                " e-mail address or prefix a group name with 'group:'"
            )
    return RoleMap(emails, groups, default, claim.strip(), seeing)


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
