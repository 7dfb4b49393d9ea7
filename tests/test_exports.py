import csv
import io

import pandas as pd

from tokendesk.exports import neutralise, safe_csv


def test_formula_cells_are_exported_inert():
    hostile = '=HYPERLINK("http://x","y")'
    frame = pd.DataFrame(
        {
            "source": [hostile, "+1", "-2", "@SUM(A1)", "plain"],
            "usd_per_hour": [1.0, 2.0, -3.0, 4.0, 5.0],
        }
    )
    rows = list(csv.DictReader(io.StringIO(safe_csv(frame).decode())))
    assert [r["source"] for r in rows] == [f"'{hostile}", "'+1", "'-2", "'@SUM(A1)", "plain"]
    assert [r["usd_per_hour"] for r in rows] == [
        "1.0",
        "2.0",
        "-3.0",
        "4.0",
        "5.0",
    ]  # numbers stay numbers
    assert neutralise(42) == 42 and neutralise("\tcmd") == "' cmd"
