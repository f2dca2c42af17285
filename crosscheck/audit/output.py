"""Writing a report set (plots, ``<stem>.md``, ``<stem>.json``) the way ``plga audit`` and
``plga audit-g`` both do: everything goes into a staging directory inside the output
directory first and moves into place only when complete, the JSON last
(:func:`~crosscheck.fsutil.publish_staged`); a run that fails or is interrupted before that
leaves the previous report as it was. The JSON holds no NaN (non-finite values become null,
listed in ``nonfinite_replaced``)."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import PlgaError
from ..fsutil import publish_staged, write_atomic
from . import plots
from .records import sanitize


@dataclass(frozen=True)
class ReportKind:
    """What differs between the report sets: the file stem (``audit`` / ``audit-g``), the
    command's name for the log, the Markdown renderer, the plot writer and its file names."""

    stem: str
    command: str
    render: Callable[[dict], str]
    write_plots: Callable[[dict, Path], list]
    plot_files: tuple


def _plots(result: dict, kind: ReportKind, enabled: bool, stage: Path, log) -> dict:
    """The plots (matplotlib, an optional extra) into ``stage``, or why they were skipped."""
    written, reason = [], None
    if not enabled:
        reason = "--no-plots"
    else:
        try:
            plots.require()
        except ImportError as exc:
            reason = (f"matplotlib is not installed ({exc}); "
                      "install the optional extra: pip install 'plga-formal[plot]'")
    if reason is None:
        written = kind.write_plots(sanitize(result), stage)
    else:
        log(f"plots skipped: {reason}")
    return {"written": written, "skipped_reason": reason}


def write_report_set(result: dict, kind: ReportKind, out_dir: Path, plots_enabled: bool, log,
                     t_start: float) -> dict:
    """Write the plots, ``<stem>.md`` and ``<stem>.json`` of ``result`` into ``out_dir``
    (staged, JSON last); returns the JSON-ready copy. A write failure is a one-line
    :class:`PlgaError` and leaves ``out_dir`` unchanged."""
    md_name, json_name = f"{kind.stem}.md", f"{kind.stem}.json"
    stage = Path(tempfile.mkdtemp(prefix=f".plga-{kind.stem}-staging-", dir=out_dir))
    try:
        t0 = time.monotonic()
        result["plots"] = _plots(result, kind, plots_enabled, stage, log)
        result["timing_s"]["plots"] = time.monotonic() - t0
        result["timing_s"]["total"] = time.monotonic() - t_start
        bad: list = []
        clean = sanitize(result, bad=bad)
        clean["nonfinite_replaced"] = bad
        write_atomic(stage / md_name, kind.render(clean))
        write_atomic(stage / json_name, json.dumps(clean, indent=1, allow_nan=False) + "\n")
        written = result["plots"]["written"]
        publish_staged(stage, out_dir, [*written, md_name, json_name], marker=json_name,
                       stale=kind.plot_files)
    except OSError as exc:   # e.g. a full disk while matplotlib writes a plot
        raise PlgaError(f"--out {out_dir}: cannot write the report ({exc.strerror or exc}); "
                        "the previous report, if any, is unchanged") from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    log(f"plga {kind.command}: wrote {out_dir / json_name}, {out_dir / md_name}"
        + (f" and {len(written)} plot(s)" if written else "")
        + f" in {result['timing_s']['total']:.1f} s")
    return clean


def plots_markdown(r: dict) -> list:
    """The report's closing "Plots" section (and the list of replaced non-finite values)."""
    md = ["", "## Plots", ""]
    pl = r["plots"]
    if pl["skipped_reason"]:
        md.append(f"Skipped: {pl['skipped_reason']}.")
    else:
        md += [f"![{p}]({p})" for p in pl["written"]]
    if r.get("nonfinite_replaced"):
        md += ["", f"Non-finite values replaced by null: {', '.join(r['nonfinite_replaced'][:20])}"]
    return md
