"""Probe runs: each validated profiler.report.ProbeReport, the machine it belongs to, the GPUs it saw.

A report is serialised once, when it is saved: its compact JSON text (ProbeReport.to_json(indent=None)) is the
stored copy, and that text's SHA-256 refuses the same report twice. Everything else in the row is derived from
the report object at the same moment: the key figures and device names the history lists show, one row per
measurement, the GPUs seen.
Reading a report back (for calibration, comparisons) parses that text with profiler.report's own loader, so
the planner always calibrates from a report that passed the same validation as a fresh one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from planner.errors import UserError
from planner.gpus import GpuSpec, match_nvml_name
from planner.messages import msg
from planner.store.connection import utc_now_iso
from planner.store.database import Database, Repository, guarded
from planner.store.rows import GpuSeen, Machine, Measurement, ProbeRun

if TYPE_CHECKING:
    from profiler.report import ProbeReport

PROBE_SOURCES = ("local", "imported")
LOCAL_MACHINE_NAME = "this machine"
# A machine label may be as long as a quote's provider name (planner.store.quotes.SHORT_TEXT_MAX).
MAX_LABEL_CHARS = 200
# The columns of a ProbeRun, in its field order (device_names: the JSON list of names).
_RUN_COLUMNS = ("r.id", "m.name", "r.machine_id", "m.hostname", "r.source", "r.mode", "r.created_at", "r.saved_at",
                "r.label", "r.device_names", "r.best_bf16_flop_per_s", "r.memory_bandwidth_bytes_per_s")  # fmt: skip


class ProbeRuns(Repository):
    """Probe runs with their machines, measurements and the GPUs seen."""

    def __init__(self, db: Database, user_gpus: Callable[[], Sequence[GpuSpec]]) -> None:
        super().__init__(db)
        self._user_gpus = user_gpus

    def save(self, report: ProbeReport, source: str = "local", label: str | None = None) -> int:
        """Store a validated ProbeReport with its measurements; returns the run id.

        source "local": the run belongs to the machine "this machine" (or `label`); "imported": to a machine named
        `label`, or "<hostname> (imported)". The same report stored twice is refused (UserError naming the run).
        """
        if source not in PROBE_SOURCES:
            raise ValueError(f"source must be one of {PROBE_SOURCES}")
        label = (label or "").strip() or None
        if label is not None and len(label) > MAX_LABEL_CHARS:  # it names the machine in every history table
            raise UserError.of(msg("error.probe_label_too_long", length=len(label), limit=MAX_LABEL_CHARS))
        report_json = report.to_json(indent=None)  # the stored text, made once
        digest = hashlib.sha256(report_json.encode("utf-8")).hexdigest()
        hostname = str(report.machine.get("hostname") or "unknown host")
        machine_name = label or (LOCAL_MACHINE_NAME if source == "local" else f"{hostname} (imported)")
        user_gpus = tuple(self._user_gpus())

        def work() -> int:
            existing = self._conn.execute(
                "SELECT id FROM probe_runs WHERE report_sha256 = ?", [digest]
            ).fetchone()
            if existing:
                raise UserError.of(msg("error.probe_duplicate", run_id=str(existing[0])))
            now = utc_now_iso()
            machine_id = self._machine_id(machine_name, hostname, source, now)
            run_id = self._insert_run(report, report_json, digest, machine_id, source, label, now)
            self._insert_measurements(run_id, report)
            self._record_gpus_seen(machine_id, report, user_gpus, now)
            return run_id

        return self._db.write(work)

    def _insert_run(self, report: ProbeReport, report_json: str, digest: str, machine_id: int, source: str,
                    label: str | None, now: str) -> int:  # fmt: skip
        cursor = self._conn.execute(
            "INSERT INTO probe_runs (machine_id, created_at, saved_at, mode, source, label, report_json, "
            "best_bf16_flop_per_s, memory_bandwidth_bytes_per_s, device_names, report_sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [machine_id, report.created_at, now, report.mode, source, label, report_json,
             report.best("matmul", "bf16"), report.best("memory_bandwidth"), json.dumps(report.device_names()),
             digest],
        )  # fmt: skip
        return int(cursor.lastrowid or 0)

    def _insert_measurements(self, run_id: int, report: ProbeReport) -> None:
        self._conn.executemany(
            "INSERT INTO measurements (run_id, device, kind, dtype, peer, value, unit, ok) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                [run_id, device["device"], m["kind"], m.get("dtype"), m.get("peer"), m.get("value"), m["unit"],
                 int(bool(m["ok"]))]
                for device in report.devices
                for m in device["measurements"]
            ],
        )  # fmt: skip

    def _machine_id(self, name: str, hostname: str, kind: str, now: str) -> int:
        row = self._conn.execute("SELECT id FROM machines WHERE name = ?", [name]).fetchone()
        if row:
            self._conn.execute("UPDATE machines SET hostname = ? WHERE id = ?", [hostname, row[0]])
            return int(row[0])
        cursor = self._conn.execute(
            "INSERT INTO machines (name, hostname, kind, created_at) VALUES (?, ?, ?, ?)",
            [name, hostname, kind, now],
        )
        return int(cursor.lastrowid or 0)

    def _record_gpus_seen(
        self, machine_id: int, report: ProbeReport, user_gpus: Sequence[GpuSpec], now: str
    ) -> None:
        for key, (name, memory) in _gpus_in(report).items():
            spec = match_nvml_name(name, user_gpus)
            self._conn.execute(
                "INSERT INTO gpus_seen (machine_id, gpu_key, name, catalog_id, memory_total_bytes, first_seen, "
                "last_seen) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (machine_id, gpu_key) DO UPDATE SET "
                "name = excluded.name, catalog_id = excluded.catalog_id, "
                "memory_total_bytes = coalesce(excluded.memory_total_bytes, memory_total_bytes), "
                "last_seen = excluded.last_seen",
                [machine_id, key, name, spec.id if spec else None, memory, now, now],
            )

    # -- reading ----------------------------------------------------------------------------------------------
    @guarded
    def all(self) -> list[ProbeRun]:
        """Runs, newest first, with their key figures."""
        rows = self._conn.execute(
            f"SELECT {', '.join(_RUN_COLUMNS)} FROM probe_runs r JOIN machines m ON m.id = r.machine_id "
            "ORDER BY r.created_at DESC, r.id DESC"
        )
        return [_probe_run(row) for row in rows]

    @guarded
    def get(self, run_id: int) -> ProbeRun:
        row = self._conn.execute(
            f"SELECT {', '.join(_RUN_COLUMNS)} FROM probe_runs r JOIN machines m ON m.id = r.machine_id WHERE r.id = ?",
            [int(run_id)],
        ).fetchone()
        if not row:
            raise UserError.of(msg("error.probe_run_missing", run_id=str(run_id)))
        return _probe_run(row)

    @guarded
    def report(self, run_id: int) -> ProbeReport:
        """The stored report, loaded and validated by profiler.report."""
        row = self._conn.execute("SELECT report_json FROM probe_runs WHERE id = ?", [int(run_id)]).fetchone()
        if not row:
            raise UserError.of(msg("error.probe_run_missing", run_id=str(run_id)))
        return _loaded(row[0])

    @guarded
    def recent_reports(self, limit: int) -> list[ProbeReport]:
        """The `limit` newest reports (the order of all()), for calibration."""
        rows = self._conn.execute(
            "SELECT report_json FROM probe_runs ORDER BY created_at DESC, id DESC LIMIT ?", [int(limit)]
        )
        return [_loaded(text) for (text,) in rows]

    @guarded
    def measurements(self, run_id: int) -> list[Measurement]:
        rows = self._conn.execute(
            "SELECT device, kind, dtype, peer, value, unit, ok FROM measurements WHERE run_id = ? ORDER BY id",
            [int(run_id)],
        )
        return [Measurement(device, kind, dtype, peer, value, unit, bool(ok))
                for device, kind, dtype, peer, value, unit, ok in rows]  # fmt: skip

    @guarded
    def machines(self) -> list[Machine]:
        rows = self._conn.execute("SELECT id, name, hostname, kind, created_at FROM machines ORDER BY id")
        return [Machine(*row) for row in rows]

    @guarded
    def gpus_seen(self, machine_id: int | None = None) -> list[GpuSeen]:
        sql = (
            "SELECT id, machine_id, gpu_key, name, catalog_id, memory_total_bytes, first_seen, last_seen "
            "FROM gpus_seen"
        )
        params: list[object] = []
        if machine_id is not None:
            sql += " WHERE machine_id = ?"
            params.append(int(machine_id))
        return [GpuSeen(*row) for row in self._conn.execute(sql + " ORDER BY id", params)]

    def delete(self, run_id: int) -> None:
        def work() -> None:
            self._conn.execute("DELETE FROM measurements WHERE run_id = ?", [int(run_id)])
            if self._conn.execute("DELETE FROM probe_runs WHERE id = ?", [int(run_id)]).rowcount == 0:
                raise UserError.of(msg("error.probe_run_missing", run_id=str(run_id)))

        self._db.write(work)


def _probe_run(row: tuple[Any, ...]) -> ProbeRun:
    """A row in _RUN_COLUMNS order -> ProbeRun (device_names is a JSON list of names)."""
    (
        id_,
        machine,
        machine_id,
        hostname,
        source,
        mode,
        created_at,
        saved_at,
        label,
        names,
        bf16,
        bandwidth,
    ) = row
    devices = tuple(str(name) for name in json.loads(names or "[]"))
    return ProbeRun(id_, machine, machine_id, hostname, source, mode, created_at, saved_at, label, devices, bf16,
                    bandwidth)  # fmt: skip


def _loaded(report_json: str) -> ProbeReport:
    from profiler.report import parse_report_text

    return parse_report_text(report_json)


def _gpus_in(report: ProbeReport) -> dict[str, tuple[str, int | None]]:
    """gpu key -> (name, memory in bytes or None) for every GPU NVML listed, else every CUDA device torch saw."""
    seen: dict[str, tuple[str, int | None]] = {}
    for gpu in report.nvml.get("gpus", []):
        # NVML may refuse the name ({"unavailable": reason}, or null in a report from elsewhere): the GPU is
        # still recorded, under its index, and matches no catalog entry.
        raw_name = gpu.get("name")
        name = (
            raw_name
            if isinstance(raw_name, str) and raw_name.strip()
            else f"GPU {gpu['index']} (name unavailable)"
        )
        uuid = gpu.get("uuid")
        key = uuid if isinstance(uuid, str) and uuid else f"{gpu['index']}:{name}"
        memory = gpu.get("memory_total_bytes")
        seen[key] = (name, memory if isinstance(memory, int) and not isinstance(memory, bool) else None)
    if not seen:  # NVML refused: fall back to what torch saw
        for device in report.devices:
            if device["kind"] == "cuda":
                seen[device.get("uuid") or f"{device['device']}:{device['name']}"] = (device["name"], None)
    return seen
