"""The figures derived for each priced option of the cost join (``warehouse.queries``), computed
once for every surface: ``tokendesk costs`` and the Costs page show the same columns.

- ``with_hour_split``: the instance-hour split between input and output tokens
  (``unit_cost.apportion_frame``) and, on request, J per output token and gCO₂e per 1M output
  tokens (``energy.bundled_energy_columns``);
- ``with_roofline``: how close each result sits to the physical bound of its accelerator.
"""

from __future__ import annotations

import pandas as pd

from benchmarks.plausibility import roofline_pct
from costmodel.energy import bundled_energy_columns
from costmodel.unit_cost import apportion_frame
from tokendesk.catalog import load_catalog


def with_hour_split(options: pd.DataFrame, *, energy: bool = True) -> pd.DataFrame:
    """``options`` plus the input / output split of each instance-hour and, when ``energy``,
    the energy and carbon columns."""
    frame = options.assign(**apportion_frame(options))
    return frame.join(bundled_energy_columns(options)) if energy else frame


def with_roofline(options: pd.DataFrame) -> pd.DataFrame:
    """``options`` plus ``roofline_pct``: instance tok/s per replica as a share of the decode
    bound of its accelerator and model (None where no bound applies)."""
    return options.assign(roofline_pct=roofline_pct(options.to_dict("records"), load_catalog()))
