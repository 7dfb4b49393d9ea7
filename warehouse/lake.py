"""Team mode: the warehouse as a DuckLake catalog in PostgreSQL with data files on a shared path.

``TOKENDESK_DB=ducklake:postgres:<libpq conninfo>`` selects it, ``TOKENDESK_DATA_PATH`` (a
directory, or ``s3://bucket/prefix``) says where its Parquet files go. Many processes on many
hosts read and write it at once: DuckLake commits each transaction as one catalog snapshot in
PostgreSQL, so a reader sees whole committed snapshots only, and concurrent writers that append
rows both land (DuckLake retries a commit that raced another one).

The DuckDB extensions come from the installed wheels (``duckdb-extension-ducklake``, ``-postgres``,
``-httpfs``) and are loaded from their files, never downloaded. DuckDB names an extension after
its file, and the PostgreSQL one must be called ``postgres_scanner``, so that file is copied once
under that name into the per-user data directory.

Ids that the embedded file takes from DuckDB sequences (price, result, decision and workspace
numbers) come here from PostgreSQL sequences in the catalog's own database, reached through the
catalog connection DuckLake opens: unique across every process, without a lock.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import duckdb

from tokendesk.paths import user_data_dir
from tokendesk.textsafety import clean_text
from warehouse.dialect import lake_sql
from warehouse.engine import (
    WRITE_WAIT_ENV,
    Wait,
    WaitReporter,
    WarehouseError,
    reporter_for,
    sql_literal,
)

LAKE_PREFIX = "ducklake:postgres:"
DATA_PATH_ENV = "TOKENDESK_DATA_PATH"
ALIAS = "tokendesk_lake"
#: The catalog database as DuckLake attaches it (a PostgreSQL database inside DuckDB).
CATALOG_ALIAS = f"__ducklake_metadata_{ALIAS}"

#: The counters the embedded schema keeps in DuckDB sequences: counter -> (table, column).
ID_COUNTERS = {
    "price_id": ("price_quotes", "price_id"),
    "result_id": ("benchmark_results", "result_id"),
    "decision_id": ("decisions", "decision_id"),
    "workspace_version": ("workspaces", "version"),
}

_EXTENSIONS = (  # (wheel package, extension file stem, name DuckDB must load it under)
    ("duckdb_extension_postgres", "postgres", "postgres_scanner"),
    ("duckdb_extension_ducklake", "ducklake", "ducklake"),
    ("duckdb_extension_httpfs", "httpfs", "httpfs"),
)


class CatalogUnreachable(WarehouseError):
    """The PostgreSQL server behind the catalog does not answer: down, restarting, or out of
    reach. Nothing is lost: DuckLake commits whole snapshots only, and the engine's connections
    to PostgreSQL are opened again on the next use once the server answers."""


#: What PostgreSQL and libpq say when the server cannot be reached, and the plain words for it.
#: The full text is never shown: it repeats the connection string, which may hold a password.
_CONNECTION_FAILURES = (
    ("connection refused", "connection refused"),
    ("the database system is starting up", "the server is starting up"),
    ("the database system is shutting down", "the server is shutting down"),
    ("the database system is in recovery mode", "the server is recovering"),
    ("terminating connection", "the server ended the connection"),
    ("server closed the connection", "the server closed the connection"),
    ("no connection to the server", "the connection to the server was lost"),
    ("could not receive data from server", "the connection to the server was lost"),
    ("could not send data to server", "the connection to the server was lost"),
    ("could not translate host name", "its host name is unknown"),
    ("timeout expired", "the connection timed out"),
    ("unable to connect to postgres", "the server cannot be reached"),
)


#: What PostgreSQL says when it answers but refuses the connection: the server is up, so waiting
#: will not help; the person must fix the connection settings. Checked before the failures above
#: (DuckDB wraps both in "Unable to connect to Postgres").
_CONNECTION_REFUSALS = (
    (
        "password authentication failed",
        "the server refused the user name or password; check the password (PGPASSWORD or"
        " ~/.pgpass) and the user in the connection string",
    ),
    (
        "no password supplied",
        "the server asks for a password and none was given; set PGPASSWORD or ~/.pgpass",
    ),
    (
        "does not exist",
        "the database or user named in the connection string does not exist on the server;"
        " create it (createdb) or fix dbname/user",
    ),
    (
        "no pg_hba.conf entry",
        "the server does not accept this user from this host (its pg_hba.conf); ask its"
        " administrator",
    ),
    (
        "permission denied for database",
        "the user may not connect to that database; ask the server's administrator",
    ),
)


def refusal_reason(exc: BaseException) -> str | None:
    """Plain words for a server that answered and refused the connection; None otherwise."""
    text = str(exc).lower()
    if "fatal" not in text and "unable to connect" not in text:
        return None  # "does not exist" in a query error (a missing table) is not a refusal
    return next((reason for marker, reason in _CONNECTION_REFUSALS if marker in text), None)


def unreachable_reason(exc: BaseException) -> str | None:
    """Plain words for a failure to reach the catalog's server; None for any other error
    (a server that answered and refused the login or the database is not unreachable)."""
    if refusal_reason(exc) is not None:
        return None
    text = str(exc).lower()
    return next((reason for marker, reason in _CONNECTION_FAILURES if marker in text), None)


class CatalogWait:
    """A writer's wait for a catalog server that does not answer (PostgreSQL restarting): it
    tries again every second up to ``limit_s`` and says so, as a writer waiting for a lock does."""

    def __init__(self, where: str, limit_s: float, report: WaitReporter | None) -> None:
        self.where, self.limit_s, self.report = where, limit_s, reporter_for(report)
        self.started = time.monotonic()
        self.reason = ""

    def again(self, exc: BaseException) -> bool:
        """After a failed open: True to try again; past the limit, the plain error."""
        self.reason = unreachable_reason(exc) or "no answer"
        elapsed = time.monotonic() - self.started
        if elapsed >= self.limit_s:
            waited = f" for {elapsed:.0f} s" if self.limit_s else ""
            knob = f", or raise {WRITE_WAIT_ENV}" if self.limit_s else ""
            raise CatalogUnreachable(
                f"cannot open the {self.where}: it does not answer ({self.reason}){waited}. "
                f"Nothing was written; try again once it answers{knob}."
            ) from None
        if self.report is not None:
            self.report(Wait("write", self.where, self.reason, elapsed, self.limit_s, False, True))
        time.sleep(min(1.0, self.limit_s - elapsed))
        return True

    def finished(self) -> None:
        if self.reason and self.report is not None:
            elapsed = time.monotonic() - self.started
            self.report(Wait("write", self.where, self.reason, elapsed, self.limit_s, True, True))


def _invalidated(exc: BaseException) -> bool:
    """DuckDB's internal or fatal errors: after one, its database refuses every query."""
    return isinstance(exc, duckdb.FatalException | duckdb.InternalException) or (
        "database has been invalidated" in str(exc)
    )


def is_lake_target(target: str) -> bool:
    return target.startswith(LAKE_PREFIX)


def _conninfo_field(conninfo: str, name: str) -> str:
    for part in conninfo.split():
        key, _, value = part.partition("=")
        if key == name:
            return value
    return ""


def describe(target: str) -> str:
    """The lake as a person may see it: database and host, never a password."""
    conninfo = target[len(LAKE_PREFIX) :]
    dbname = _conninfo_field(conninfo, "dbname") or "postgres"
    host = _conninfo_field(conninfo, "host") or "localhost"
    port = _conninfo_field(conninfo, "port")
    return f"DuckLake catalog {dbname} on {host}{':' + port if port else ''}"


def extension_file(package: str, stem: str) -> Path:
    """The extension file an installed wheel ships for this DuckDB version."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise WarehouseError(
            f"team mode needs the Python package {package.replace('_', '-')}=="
            f"{duckdb.__version__}; install the pinned requirements (scripts/setup.sh)"
        )
    root = Path(next(iter(spec.submodule_search_locations)))
    path = root / "extensions" / f"v{duckdb.__version__}" / f"{stem}.duckdb_extension"
    if not path.is_file():
        raise WarehouseError(
            f"{package.replace('_', '-')} holds no extension for DuckDB {duckdb.__version__}; "
            "install the version that requirements.txt pins beside duckdb"
        )
    return path


def _named_copy(source: Path, name: str) -> Path:
    """``source`` under the file name DuckDB must see (copied once per DuckDB version)."""
    if source.stem == name:
        return source
    folder = user_data_dir() / "duckdb-extensions" / f"v{duckdb.__version__}"
    target = folder / f"{name}.duckdb_extension"
    if target.is_file() and target.stat().st_size == source.stat().st_size:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
    os.close(handle)
    shutil.copyfile(source, temporary)
    os.replace(temporary, target)  # atomic: a concurrent starter never loads half a file
    return target


def _s3_secret_options() -> dict[str, object]:
    """An S3 secret from the standard AWS variables; an endpoint URL selects a local server."""
    options: dict[str, object] = {}
    for option, names in (
        ("KEY_ID", ("AWS_ACCESS_KEY_ID",)),
        ("SECRET", ("AWS_SECRET_ACCESS_KEY",)),
        ("SESSION_TOKEN", ("AWS_SESSION_TOKEN",)),
        ("REGION", ("AWS_REGION", "AWS_DEFAULT_REGION")),
    ):
        value = next((os.environ[n] for n in names if os.environ.get(n)), "")
        if value:
            options[option] = value
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        parts = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
        options["ENDPOINT"] = parts.netloc
        options["USE_SSL"] = parts.scheme == "https"
        options["URL_STYLE"] = "path"  # local S3-compatible servers rarely resolve bucket hosts
    return options


_engines: dict[tuple[str, str], LakeEngine] = {}
_engines_lock = threading.Lock()


class LakeEngine:
    """One process's connection to one DuckLake warehouse, attached for the process's life."""

    @classmethod
    def shared(cls, target: str, data_path: str | None = None) -> LakeEngine:
        data_path = data_path if data_path is not None else os.environ.get(DATA_PATH_ENV, "")
        key = (target, data_path)
        with _engines_lock:
            engine = _engines.get(key)
            if engine is None or engine._closed:
                engine = _engines[key] = cls(target, data_path)
            engine._users += 1
            return engine

    def __init__(self, target: str, data_path: str) -> None:
        if not is_lake_target(target):
            raise WarehouseError(f"a team-mode warehouse is named {LAKE_PREFIX}<conninfo>")
        self.target = target
        self.data_path = data_path
        self.path = describe(target)
        self._users = 0
        self._closed = False
        self._write_lock = threading.RLock()  # this process's writers take turns
        self._renew_lock = threading.Lock()
        self._needs_renewal = False
        #: Writes this process made through this engine: a local copy of the lake
        #: (``lake_copy.py``) catches up after one.
        self.writes = 0
        self._db = self._connect()

    def _connect(self) -> duckdb.DuckDBPyConnection:
        """A new in-memory DuckDB with the extensions loaded and the lake attached."""
        db = duckdb.connect(
            ":memory:",
            config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
        )
        try:
            db.execute("SET enable_progress_bar = false")
            self._load_extensions(db)
            self._attach(db)
        except BaseException:
            db.close()
            raise
        return db

    def _renewed(self) -> duckdb.DuckDBPyConnection:
        """The in-memory DuckDB, replaced first if an error invalidated it.

        When PostgreSQL drops the catalog connection in the middle of a query, DuckDB 1.5.5 with
        the ducklake extension can fail with an internal error and then refuses every further
        query ("database has been invalidated ... must be restarted"), so that process would
        never read the lake again. It is replaced by a new one here, on the next use, once the
        server answers; while it does not, the use fails as the catalog not answering.
        """
        if not self._needs_renewal:
            return self._db
        with self._renew_lock:
            if self._needs_renewal:
                fresh = self._connect()  # raises CatalogUnreachable while the server is down
                old, self._db = self._db, fresh
                self._needs_renewal = False
                with contextlib.suppress(duckdb.Error):
                    old.close()
        return self._db

    def _load_extensions(self, db: duckdb.DuckDBPyConnection) -> None:
        for package, stem, name in _EXTENSIONS:
            path = _named_copy(extension_file(package, stem), name)
            db.execute(f"LOAD {sql_literal(str(path))}")

    def _attach(self, db: duckdb.DuckDBPyConnection) -> None:
        options = []
        if self.data_path:
            if self.data_path.startswith("s3://"):
                secret = _s3_secret_options()
                names = ", ".join(f"{option} ?" for option in secret)
                db.execute(
                    f"CREATE OR REPLACE SECRET tokendesk_s3 (TYPE s3{', ' if names else ''}{names})",
                    list(secret.values()),
                )
            else:
                self._make_data_folder()
            options.append(f"DATA_PATH {sql_literal(self.data_path.rstrip('/') + '/')}")
        clause = f" ({', '.join(options)})" if options else ""
        try:
            db.execute(f"ATTACH {sql_literal(self.target)} AS {ALIAS}{clause}")
        except duckdb.Error as exc:
            if unreachable_reason(exc):
                raise CatalogUnreachable(self._attach_error(exc)) from None
            raise WarehouseError(self._attach_error(exc)) from None

    def _make_data_folder(self) -> None:
        """The local data folder, made if missing; a path that is a file (or cannot be made) is
        refused naming it, before the catalog is touched."""
        folder = Path(self.data_path)
        if folder.exists() and not folder.is_dir():
            raise WarehouseError(
                f"the data path {clean_text(self.data_path)} ({DATA_PATH_ENV}) is a file, not a"
                " directory; point it at a directory (or s3://bucket/prefix)"
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WarehouseError(
                f"the data path {clean_text(self.data_path)} ({DATA_PATH_ENV}) cannot be made a"
                f" directory: {clean_text(exc.strerror or type(exc).__name__)}"
            ) from None

    def _attach_error(self, exc: duckdb.Error) -> str:
        refused = refusal_reason(exc)
        if refused:
            return f"cannot open the {self.path}: {refused}."
        reason = unreachable_reason(exc)
        if reason:
            return (
                f"cannot open the {self.path}: it does not answer ({reason}). Nothing was changed."
            )
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        password = _conninfo_field(self.target[len(LAKE_PREFIX) :], "password")
        if password:
            text = text.replace(password, "***")
        hint = (
            f" (a new catalog needs {DATA_PATH_ENV}: a directory or s3://bucket/prefix)"
            if not self.data_path
            else ""
        )
        return f"cannot open the {self.path}: {text}{hint}"

    def unreachable(self, exc: BaseException, consequence: str) -> CatalogUnreachable | None:
        """``exc`` as the plain error a person sees, when it says the catalog does not answer."""
        reset = _invalidated(exc)
        if reset:
            self._needs_renewal = True
        reason = unreachable_reason(exc) or self._probe()
        if reason is None and reset:
            reason = "the connection was cut and has been opened again"
        if reason is None:
            return None
        return CatalogUnreachable(f"the {self.path} does not answer ({reason}). {consequence}")

    def _probe(self) -> str | None:
        """Why the catalog server does not answer now, or None when it does. Asked after an
        error that does not say (a commit cut off by a server crash reports only "Failed to
        execute query ROLLBACK")."""
        try:
            self._on_catalog("SELECT * FROM postgres_query(?, 'SELECT 1')", [CATALOG_ALIAS])
        except CatalogUnreachable as exc:  # renewing the DuckDB could not reach the server
            return unreachable_reason(exc) or "no answer"
        except duckdb.Error as exc:
            return unreachable_reason(exc) or "no answer"
        return None

    # -- the engine interface the store uses --------------------------------------------------
    @contextmanager
    def reading(self, report: WaitReporter | None = None) -> Iterator[None]:
        """Nothing to hold: every query sees the newest snapshot committed when it starts."""
        try:
            yield
        except duckdb.Error as exc:
            plain = self.unreachable(exc, "Nothing was changed; read again once it answers.")
            if plain is None:
                raise
            raise plain from None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = self._renewed().cursor()
        # Catalog round trips make queries slow enough for DuckDB's progress bar, which it
        # writes to stdout: into the CSV or JSON the CLI is printing. It is set per connection.
        cursor.execute(f"SET enable_progress_bar = false; USE {ALIAS}")
        return cursor

    @contextmanager
    def writing(self, report: WaitReporter | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor for one write. Other processes never wait: DuckLake commits optimistically."""
        with self._write_lock:
            cursor = self.cursor()
            try:
                yield cursor
                self.writes += 1
            except duckdb.Error as exc:
                # Lost before or during the commit: PostgreSQL commits the catalog snapshot whole
                # or not at all, so the write either landed entirely or left nothing.
                plain = self.unreachable(
                    exc,
                    "The write did not land unless `tokendesk db info` lists it (a snapshot"
                    " lands whole or not at all); run it again once the catalog answers.",
                )
                if plain is None:
                    raise
                raise plain from None
            finally:
                cursor.close()

    def schema_sql(self, sql: str) -> str:
        return lake_sql(sql)

    def _on_catalog(self, sql: str, params: list[object]) -> list[tuple]:
        """Run ``sql`` on a cursor of its own: the in-memory DuckDB's own connection must never
        be used by two threads at once (the dashboard's sessions are threads), and sharing it
        kept dead PostgreSQL connections in use after a server restart."""
        cursor = self._renewed().cursor()
        try:
            return cursor.execute(sql, params).fetchall()
        finally:
            cursor.close()

    def ensure_id_counters(self) -> None:
        """Create the PostgreSQL sequences behind the ids (idempotent)."""
        statements = "; ".join(
            f"CREATE SEQUENCE IF NOT EXISTS tokendesk_{counter}_seq" for counter in ID_COUNTERS
        )
        self._on_catalog("CALL postgres_execute(?, ?)", [CATALOG_ALIAS, statements])

    def next_ids(self, counter: str, count: int) -> list[int]:
        """``count`` new ids, increasing, that no other process will ever be given."""
        if counter not in ID_COUNTERS:
            raise WarehouseError(f"no id counter {counter!r}")
        if count <= 0:
            return []
        # PostgreSQL's own SQL, run by postgres_query: a counter name checked above, an int.
        query = (
            f"SELECT nextval('tokendesk_{counter}_seq') AS id FROM generate_series(1, {int(count)})"  # noqa: S608
        )
        rows = self._on_catalog("SELECT id FROM postgres_query(?, ?)", [CATALOG_ALIAS, query])
        return sorted(int(row[0]) for row in rows)

    def advance_id_counters(self) -> None:
        """Move each sequence past the largest id its table holds (after a bulk copy)."""
        cursor = self.cursor()
        try:
            for counter, (table, column) in ID_COUNTERS.items():
                row = cursor.execute(
                    f"SELECT coalesce(max({column}), 0) FROM {table}"  # noqa: S608 - fixed names
                ).fetchone()
                highest = int(row[0]) if row else 0
                if highest:
                    self._on_catalog(
                        "SELECT * FROM postgres_query(?, ?)",
                        [
                            CATALOG_ALIAS,
                            f"SELECT setval('tokendesk_{counter}_seq', {highest})",
                        ],
                    )
        finally:
            cursor.close()

    def catalog_snapshot(self) -> int:
        """The lake's newest committed DuckLake snapshot: it changes with every write, anywhere."""
        try:
            rows = self._on_catalog("SELECT * FROM ducklake_current_snapshot(?)", [ALIAS])
        except duckdb.Error as exc:
            plain = self.unreachable(exc, "Nothing was changed.")
            if plain is None:
                raise
            raise plain from None
        return int(rows[0][0]) if rows else 0

    def close(self) -> None:
        """Let go of one user; the last one detaches and closes the in-memory DuckDB."""
        with _engines_lock:
            self._users -= 1
            if self._users > 0 or self._closed:
                return
            self._closed = True
            key = (self.target, self.data_path)
            if _engines.get(key) is self:
                del _engines[key]
        self._db.close()
