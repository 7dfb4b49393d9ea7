"""The ``tokendesk`` command: everything a person runs outside the browser.

This module is the root only. Each command lives in the module named in :data:`COMMANDS` and is
imported when it runs (or when its own ``--help`` is asked for): ``tokendesk --help`` and a quick
command do not pay for DuckDB, pandas, SciPy or ReportLab they never use.
"""

from __future__ import annotations

import functools
import importlib
import os  # noqa: F401  (tests replace os.execv through this module, as `tokendesk app` uses it)
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from tokendesk.access import USER_ENV, set_local_user
from tokendesk.terminal import make_console

#: Every top-level command: the module that defines it (with a ``register(app)`` that mounts it)
#: and the one line ``tokendesk --help`` lists it with (short enough for 80 columns; the
#: command's own ``--help`` says the rest).
COMMANDS: dict[str, tuple[str, str]] = {
    "costs": ("cli.costs_command", "$/1K tokens and first-token latency per option."),
    "db": ("cli.db_command", "Create, rebuild, inspect and move the warehouse."),
    "app": ("cli.dashboard_command", "Start the dashboard."),
    "prices": ("cli.prices_command", "Refresh live cloud prices, check their integrity."),
    "bench": ("cli.bench_command", "Run the portability harness, import results."),
    "brief": ("cli.briefs_command", "A buy/no-buy brief comparing procurement scenarios."),
    "gate": ("cli.briefs_command", "Fail a CI job when a backend regresses in cost or FTL."),
    "futures": ("cli.briefs_command", "Futures day: what changed since the last review."),
    "audit": ("cli.audit_command", "What ties a repository to CUDA, per target backend."),
    "workspace": ("cli.workspace_command", "Your fleet, demand and constraints (YAML in/out)."),
    "scenarios": ("cli.workspace_command", "Stay / Shift to AMD / CPU fallback from your fleet."),
    "optimize": ("cli.optimize_command", "The cheapest fleet that meets your demand and SLOs."),
    "commit": ("cli.commit_command", "How much capacity to commit per workload, how long."),
    "estimate": ("cli.estimate_command", "Estimated tok/s and TTFT for any model and part."),
}

#: Commands that become another program (``app`` execs the dashboard's server): this process
#: writes nothing, so it loads nothing to report waits with (0.4 s of the server's start).
BECOME_ANOTHER_PROGRAM = frozenset({"app"})

err = make_console(stderr=True)


def mount(module_name: str, app: typer.Typer) -> None:
    """Import ``module_name`` and mount its commands on ``app``."""
    importlib.import_module(module_name).register(app)


def _report_waits() -> None:
    """A write that waits for another process says so on stderr (the warehouse is imported by
    then: the command that writes has run its imports)."""
    from warehouse.engine import report_waits_to

    report_waits_to(_say_waiting)


def _when_run(command: Any) -> None:
    """Wrap every leaf command's callback so that, when it runs (not when its help is shown),
    waits are reported first."""
    for child in getattr(command, "commands", {}).values():
        _when_run(child)
    original = command.callback
    if original is None or hasattr(command, "commands"):
        return

    @functools.wraps(original)
    def run(*args: Any, **kwargs: Any) -> Any:
        _report_waits()
        return original(*args, **kwargs)

    command.callback = run


def load_command(name: str) -> Any:
    """The real click command ``name``, its module imported now."""
    holder = typer.Typer(rich_markup_mode=None)

    @holder.callback()
    def _group() -> None:  # a callback keeps typer building a group, even of one command
        pass

    mount(COMMANDS[name][0], holder)
    group: Any = typer.main.get_command(holder)
    command = group.commands[name]
    if name not in BECOME_ANOTHER_PROGRAM:
        _when_run(command)
    return command


class LazyCommands(TyperGroup):
    """The root group: lists every command from :data:`COMMANDS` and imports one when it runs."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(dict.fromkeys([*COMMANDS, *super().list_commands(ctx)]))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in COMMANDS:
            return command
        # Listing for --help: a stand-in with the command's one line, nothing imported.
        line = COMMANDS[cmd_name][1]
        return TyperCommand(name=cmd_name, help=line, short_help=line, callback=None)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else None
        if name in COMMANDS and super().get_command(ctx, name) is None:
            self.commands[name] = load_command(name)
        elif name is not None and name not in self.commands:
            # A typo: stand-ins make every command a candidate for "Did you mean …?".
            for other in COMMANDS:
                self.commands.setdefault(other, self.get_command(ctx, other))
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=LazyCommands,
    # Click's own help layout: typer's rich layout imports rich's traceback, pretty-printer and
    # markdown modules first, most of the time `tokendesk --help` would otherwise take.
    rich_markup_mode=None,
    help="What a thousand tokens cost, and how fast the first one arrives, on every accelerator.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


@app.callback()
def _acting_user(
    acting_as: Annotated[
        str | None,
        typer.Option(
            "--as",
            envvar=USER_ENV,
            help="Name to record with every write of this command (default: $TOKENDESK_USER,"
            " else your OS user name).",
        ),
    ] = None,
) -> None:
    """Record who writes: each snapshot, workspace version and decision carries this name."""
    set_local_user(acting_as)


def _register_subcommands() -> None:
    """Mount every command on ``app`` now (for tests that inspect the whole app at once)."""
    for module_name in dict.fromkeys(module for module, _ in COMMANDS.values()):
        mount(module_name, app)


def _say_waiting(wait: Any) -> None:
    from tokendesk.textsafety import terminal_text

    err.print(f"[yellow]{terminal_text(wait.message())}[/yellow]", highlight=False)


def _warehouse_failure(exc: Exception) -> bool:
    """Whether ``exc`` is the warehouse's own error, or a bundled data file it refused while
    building (only possible once the warehouse loaded): said in its own words, which name the
    file, the row and the field."""
    store = sys.modules.get("warehouse.store")
    seed = sys.modules.get("warehouse.seed")
    return (store is not None and isinstance(exc, store.WarehouseError)) or (
        seed is not None and isinstance(exc, seed.SeedFileError)
    )


def _unreachable(exc: Exception) -> str:
    lake = sys.modules.get("warehouse.lake")
    return lake.unreachable_reason(exc) if lake is not None else ""


def main(argv: list[str] | None = None) -> None:
    """Exit codes: 0 done; 1 failed or partial (the reason is printed); 2 bad input or usage."""
    if "warehouse.engine" in sys.modules:  # commands mounted up front (tests) run unwrapped
        _report_waits()
    try:
        # Standalone mode: usage errors exit 2 with click's message, typer.Exit keeps its code.
        app(args=argv, prog_name="tokendesk")
    except KeyboardInterrupt:
        err.print("interrupted; nothing more was written")
        raise SystemExit(130) from None
    except Exception as exc:  # the last line of defence: a message, never a traceback
        from cli.exits import fail

        if _warehouse_failure(exc):  # e.g. another process held the file too long: advice
            raise SystemExit(fail(str(exc), 1).exit_code) from None
        reason = _unreachable(exc)
        if reason:  # team mode: PostgreSQL went away under a read (its text names the server)
            raise SystemExit(
                fail(
                    f"the team warehouse's catalog server does not answer ({reason})."
                    " A write lands whole or not at all: `tokendesk db info` lists what landed."
                    " Run the command again once it answers.",
                    1,
                ).exit_code
            ) from None
        # Not through fail(): the advice follows the fault's text even when that text is cut short.
        from tokendesk.textsafety import terminal_text

        err.print(
            f"[red]error:[/red] {terminal_text(type(exc).__name__ + ': ' + str(exc))}\n"
            "This is a fault in tokendesk; anything the command was writing was rolled back."
            " Please report it with the command you ran.",
            highlight=False,
        )
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
