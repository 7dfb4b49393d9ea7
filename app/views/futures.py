"""Futures day: what changed since the last review (new SKUs, price moves, new results) for the
models and SKUs the company runs or could buy, judged against its own fleet, and the decision log.

The figures are the report ``tokendesk futures compare --format json`` prints (one computation,
``planning.review.company_review``); this page only chooses the dates and draws it.
"""

from __future__ import annotations

from datetime import date

import streamlit as st

from app import auth, data, ui
from app.models import futures as model
from app.safe import plain
from app.url_state import UrlInput
from planning.review import FuturesReport
from planning.workspaces import is_example
from tokendesk import formatting
from tokendesk.access import Action
from warehouse.decisions import DECISIONS, Decision, DecisionError, ReviewClosing

st.title("Futures day")
st.caption(
    "What changed since the last review — new SKUs, price moves, new results — for the models "
    "your workloads run and the SKUs you run or could buy, each judged against your own fleet at "
    "the rates you pay. The same review as `tokendesk futures compare`."
)

path = data.db_path()
last, days = data.review_dates(path)
today = date.today()
CHOICES = model.since_choices(days, today)
INPUTS = (UrlInput("since", "choice", model.SINCE_LAST_REVIEW, choices=CHOICES),)
start_values = ui.url_inputs(INPUTS)
since = st.selectbox(
    "Compare since",
    list(CHOICES),
    list(CHOICES).index(str(start_values["since"])),
    format_func=lambda c: model.since_label(c, last, today),
    key="since",
)
ui.keep_in_url({"since": since}, INPUTS)
start = model.start_of(since, last, today)

_, ws = data.workspace(path)
st.caption(
    f"Your fleet: **{plain(ws.name)}**"
    + (", the bundled example: replace it on the Workspace page." if is_example(ws) else ".")
)


def review(start: date) -> FuturesReport:
    """The review from ``start`` to today: its headline, the moves on your fleet, the judged
    new SKUs, and every price move and new SKU."""
    report = data.futures_review(path, start, today)
    head = model.headline(report)
    st.subheader(f"{report.date_from:%Y-%m-%d} → {report.date_to:%Y-%m-%d}")
    cards = st.columns(4)
    cards[0].metric(
        "Stay per month",
        formatting.usd_change(head.stay_change_usd_per_month),
        help="The price moves on SKUs your fleet runs, on the lines paying the list price: "
        "(new − old $/h) × instances × 730 h. Sources below.",
    )
    cards[1].metric("Price moves", f"{head.price_moves:,}")
    cards[2].metric("New SKUs", f"{head.new_skus:,}")
    cards[3].metric("Buy suggestions", f"{head.buys:,}")
    st.markdown(plain(model.stay_sentence(head), limit=2000))

    st.subheader("Price moves on the SKUs you run")
    # The tables are made once per review (its window), not on every rerun of the page.
    window = (path, start, today)
    effects = data.derived("futures_effects", window, lambda: model.fleet_effects_table(report))
    if effects.frame.empty:
        st.caption("No price moved on a SKU your fleet runs.")
    else:
        ui.show_table(effects, key="futures_effects")

    st.subheader("New SKUs for your workloads")
    st.caption(
        plain(
            f"Each new SKU, for each model your workloads run, against the fleet line serving it: buy"
            f" if it is cheaper per output token by more than {report.rules.min_savings_pct:.0%} and"
            f" its first-token latency is no more than {report.rules.max_ftl_regression_pct:.0%}"
            " worse; defer when latency is unknown or nothing comparable runs; no-buy otherwise. A SKU"
            " you already run is never a candidate. Prices are compared on the same terms (on demand"
            " against on demand or your line's effective rate; spot only where the workspace allows"
            " spot), and only providers your workspace approves are judged.",
            limit=2000,
        )
    )
    suggested = data.derived("futures_suggestions", window, lambda: model.suggestions_table(report))
    if suggested.frame.empty:
        st.caption("No new SKU has a result for a model your workloads run.")
    else:
        ui.show_table(suggested, key="futures_suggestions")

    # The full lists are drawn when opened: a closed one costs the page nothing.
    moves = _section(f"All price moves ({head.price_moves:,})", "futures_all_moves")
    if moves.open:
        with moves:
            ui.show_table(model.price_moves_table(report), key="futures_moves")
    new_skus = _section(f"All new SKUs ({head.new_skus:,})", "futures_all_new_skus")
    if new_skus.open:
        with new_skus:
            ui.show_table(model.new_skus_table(report), key="futures_new_skus")
    results = data.derived("futures_results", window, lambda: model.results_table(report))
    per_dollar = _section(
        f"Perf per dollar for your models ({len(results.frame):,} accelerators)",
        "futures_per_dollar",
    )
    if per_dollar.open:
        with per_dollar:
            st.caption(
                "Output tokens per dollar of each accelerator's cheapest option, on both dates: new"
                " results and price moves both show here. The sources are on the Costs page."
            )
            ui.show_table(results, key="futures_results")
    return report


def _section(title: str, key: str):
    return st.expander(title, key=key, on_change="rerun")


def decision_log(report: FuturesReport | None) -> None:
    """The log, and the form that appends to it (editors); a decision taken on a review links
    that review's dates and snapshots."""
    st.subheader("Decision log")
    log = model.decisions_table(data.decision_log(path))
    if log.frame.empty:
        st.caption("No decisions recorded yet.")
    else:
        ui.show_table(log, key="futures_log")

    blocked = auth.why_not(Action.RECORD_DECISION)
    if blocked:
        st.info(f"{blocked} You can read the review and the decision log.")
    with st.form("futures_decide"):
        st.markdown("**Record a decision** (appended; an earlier one is never changed)")
        left, right = st.columns(2)
        subject = left.text_input("Subject", key="decide_subject", disabled=bool(blocked))
        decision = right.selectbox(
            "Decision", DECISIONS, key="decide_decision", disabled=bool(blocked)
        )
        rationale = st.text_area("Why", key="decide_rationale", disabled=bool(blocked))
        by = st.text_input(
            "Decided by", value=auth.current_user().name, key="decide_by", disabled=bool(blocked)
        )
        submitted = st.form_submit_button("Record", disabled=bool(blocked))
    linked = tuple(dict.fromkeys((*report.snapshots_from, *report.snapshots_to))) if report else ()
    if submitted and not blocked:
        try:
            decision_id = data.record_decision(
                Decision(
                    subject,
                    decision,
                    rationale,
                    by,
                    today,
                    linked,
                    report.date_from if report else None,
                    report.date_to if report else None,
                )
            )
        except DecisionError as exc:
            st.error(f"Nothing was recorded: {plain(exc)}.")
        else:
            st.success(f"Decision {decision_id} recorded: {plain(subject)} → {decision}.")
    if report is not None:
        close_review(report, blocked)


def close_review(report: FuturesReport, blocked: str | None) -> None:
    """Closing the review on purpose (recorded decisions leave it open): the next review starts
    on the day this one ends."""
    st.caption(
        "The review stays open while decisions are recorded on it. Close it when it is done: the"
        f" next review then starts on {report.date_to:%Y-%m-%d}."
    )
    if st.button("Close this review", key="futures_close", disabled=bool(blocked)) and not blocked:
        try:
            data.close_review(
                ReviewClosing(report.date_to, auth.current_user().name, report.date_from)
            )
        except DecisionError as exc:
            st.error(f"The review was not closed: {plain(exc)}.")
        else:
            st.success(f"Review {report.date_from:%Y-%m-%d} → {report.date_to:%Y-%m-%d} closed.")


if start is None or start >= today:
    st.info(
        model.nothing_to_compare(since, last, today)
        if start is None
        else "There is nothing to compare: the snapshot picked is from today."
    )
    decision_log(None)
else:
    decision_log(review(start))
