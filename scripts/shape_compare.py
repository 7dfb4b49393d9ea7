"""What a workspace's fleet costs for a trace's workload shape against its own, at the same output
volume (same fleet, same hardware): Stay's month-1 cost of the workload and its $/1K output.

    .venv/bin/python scripts/shape_compare.py \
        [--workspace data/workspace_example.yaml] [--workload chat-70b] \
        [--trace tests/fixtures/real/traces/AzureLLMInferenceTrace_code_first2000.csv] [--json]

Reads the warehouse (``TOKENDESK_DB`` or the default) and the files; changes nothing. The rules
are ``planning.shapes`` (what the trace lends) and ``costmodel.shape`` (how capacity is read).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from briefs.demand_doc import trace_document  # noqa: E402
from planning import workspaces as pw  # noqa: E402
from planning.shapes import shape_comparison  # noqa: E402
from warehouse import Warehouse  # noqa: E402

TRACE = (
    ROOT / "tests" / "fixtures" / "real" / "traces" / "AzureLLMInferenceTrace_code_first2000.csv"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, default=ROOT / "data" / "workspace_example.yaml")
    parser.add_argument("--workload", default="")
    parser.add_argument("--trace", type=Path, default=TRACE)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ws, _ = pw.read_workspace_file(args.workspace)
    workload = args.workload or ws.demand[0].workload
    doc = trace_document(args.trace)
    with Warehouse.open(None, read_only=True) as warehouse:
        engine = pw.engine_for(warehouse, ws)
    rows = shape_comparison(engine, ws, workload, doc)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"{ws.name}, workload {workload}: trace {doc['source']['file']} ({doc['requests']:,}"
        f" requests over {doc['trace_hours']:.2f} h): {doc['input_tokens_per_month']:,} input and"
        f" {doc['output_tokens_per_month']:,} output tokens a month, input:output"
        f" {doc['input_output_ratio']:.1f}:1, peak ÷ mean {doc['peak_to_mean']:.2f} per"
        f" {doc['peak_to_mean_grain']} (not used: the workspace's daily peak stays)"
    )
    for row in rows:
        cache = row["prefix_cache_share"]
        print(
            f"- {row['demand']}: {row['output_tokens_per_month']:,.0f} output and"
            f" {row['input_tokens_per_month']:,.0f} input tokens a month"
            f" ({row['input_per_output_token']:.3g}:1, prefix cache"
            f" {'not stated' if cache is None else f'{cache:.0%}'}): Stay month 1"
            f" ${row['stay_month1_usd']:,.2f} (top-up ${row['stay_top_up_usd']:,.2f}),"
            f" ${row['usd_per_1k_output_tokens']:.6f} per 1K output tokens"
        )
        for basis in row["capacity_basis"]:
            kind = basis["kind"]
            said = basis["rule"] + (f" ({basis['gap']})" if kind == "estimated" else "")
            print(f"    {basis['role']} {basis['instance_type']}: {kind}: {said}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
