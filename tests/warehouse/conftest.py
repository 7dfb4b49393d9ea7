"""Servers for the team-mode tests, started once per test run (see tests/lake_servers.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.lake_servers import PostgresServer, S3Server, postgres_server, s3_server

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server in a temporary directory (Debian's packages)."""
    try:
        with postgres_server() as server:
            yield server
    except FileNotFoundError:
        pytest.skip(
            "PostgreSQL's server programs (initdb, pg_ctl) are not installed; "
            "scripts/setup.sh --dev installs them"
        )


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3-compatible server on a loopback port."""
    with s3_server(tmp_path_factory.mktemp("s3")) as server:
        yield server


@pytest.fixture
def lake_target(postgres: PostgresServer) -> str:
    """A new, empty catalog database: ``ducklake:postgres:<conninfo>``."""
    return postgres.create_database(f"lake_{next(_numbers)}")
