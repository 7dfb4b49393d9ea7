"""Energy and carbon per output token.

Energy per token = power (W) ÷ throughput (tok/s) = joules per token, for one replica at the
result's operating point. Power is the result's own measurement where it carries one
(``measured_power_w``: telemetry of the replica's accelerators over the run); otherwise the
accelerators' datasheet TDP × an assumed utilisation, labelled an estimate. Like $/output token,
all the energy of serving a request is charged to its output tokens.

Carbon = energy (kWh) × the region's annual average grid intensity (gCO₂e/kWh) from a sourced,
dated table; a region without a published figure has none, and says so. Both count the
accelerators only: host CPUs, memory, networking and the facility's overhead (PUE) are outside.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from costmodel import bundled_tables
from costmodel.bundled_tables import GridIntensity

#: Joules in one kilowatt-hour (3600 s × 1000 W).
JOULES_PER_KWH = 3.6e6
TOKENS_PER_MILLION = 1e6
#: The share of TDP an accelerator is assumed to draw at a benchmark's operating point when the
#: result measured no power. TDP is the most a board draws sustained, so 1.0 makes the estimate an
#: upper bound of the accelerators' energy rather than a guess at a typical draw.
ASSUMED_TDP_UTILISATION = 1.0

BASIS_MEASURED = "measured power"
BASIS_NONE = "no measured power and no TDP"


def estimate_basis(utilisation: float = ASSUMED_TDP_UTILISATION) -> str:
    return f"estimate: TDP × {utilisation:.0%} utilisation"


def joules_per_token(power_w, tok_s):
    """W ÷ tok/s = J/token over arrays; NaN where either is missing or throughput is not positive."""
    power = np.asarray(power_w, dtype=float)
    tput = np.asarray(tok_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(tput > 0, power / tput, np.nan)
    return float(out) if out.ndim == 0 else out


def kwh_per_million_tokens(j_per_token):
    """J/token × 1M tokens ÷ 3.6 MJ/kWh."""
    return np.asarray(j_per_token, dtype=float) * TOKENS_PER_MILLION / JOULES_PER_KWH


def g_co2e_per_million_tokens(j_per_token, g_co2e_per_kwh):
    """kWh per 1M tokens × grid gCO₂e/kWh."""
    return kwh_per_million_tokens(j_per_token) * np.asarray(g_co2e_per_kwh, dtype=float)


def energy_columns(
    options: pd.DataFrame,
    tdp_w: Mapping[str, float],
    grid: Mapping[tuple[str, str], GridIntensity],
    utilisation: float = ASSUMED_TDP_UTILISATION,
) -> pd.DataFrame:
    """Per row of the cost join: the replica's power and its basis, J per output token, kWh and
    gCO₂e per 1M output tokens, and the grid figure used (value, year, source, confidence).

    ``tdp_w`` maps accelerator ids to datasheet TDP; ``grid`` maps (provider, region) to a grid
    intensity row. Rows with neither measured power nor a TDP, or in a region the table does not
    cover, get NaN and a basis that says why.
    """
    index = options.index
    measured = (
        pd.to_numeric(options["measured_power_w"], errors="coerce")
        if "measured_power_w" in options
        else pd.Series(np.nan, index=index)
    ).to_numpy(dtype=float)
    tdp = options["accelerator_id"].astype(str).map(tdp_w).to_numpy(dtype=float)
    accelerators = pd.to_numeric(options["accelerators_per_replica"]).to_numpy(dtype=float)
    estimated = tdp * accelerators * utilisation
    has_measured = ~np.isnan(measured)
    power = np.where(has_measured, measured, estimated)
    basis = np.where(
        has_measured,
        BASIS_MEASURED,
        np.where(np.isnan(estimated), BASIS_NONE, estimate_basis(utilisation)),
    )
    replica_tok_s = pd.to_numeric(options["instance_output_tok_s"]).to_numpy(dtype=float) / (
        pd.to_numeric(options["replicas_per_instance"]).to_numpy(dtype=float)
    )
    j_per_token = np.atleast_1d(joules_per_token(power, replica_tok_s))
    keys = list(zip(options["provider"].astype(str), options["region"].astype(str), strict=True))
    found = [grid.get(key) for key in keys]
    intensity = np.array([np.nan if g is None else g.g_co2e_per_kwh for g in found], dtype=float)
    return pd.DataFrame(
        {
            "power_w": power,
            "energy_basis": basis.astype(object),
            "joules_per_output_token": j_per_token,
            "kwh_per_1m_output_tokens": kwh_per_million_tokens(j_per_token),
            "grid_g_co2e_per_kwh": intensity,
            "grid_year": pd.array([None if g is None else g.year for g in found], dtype="Int64"),
            "grid_source": [
                "no published figure for this region" if g is None else g.source_title
                for g in found
            ],
            "grid_source_url": ["" if g is None else g.source_url for g in found],
            "grid_confidence": ["" if g is None else g.confidence for g in found],
            "g_co2e_per_1m_output_tokens": g_co2e_per_million_tokens(j_per_token, intensity),
        },
        index=index,
    )


def bundled_energy_columns(options: pd.DataFrame) -> pd.DataFrame:
    """``energy_columns`` with the bundled TDP and grid-intensity tables of ``data/``."""
    tdp = {key: row.tdp_w for key, row in bundled_tables.accelerator_power().items()}
    return energy_columns(options, tdp, bundled_tables.grid_intensity())
