#!/usr/bin/env python3
"""Runs the hostile-input corpus (generate.py) against a contactlab binary and checks each case's
outcome against its expected class (manifest.tsv).

  run_hostile.py --bin build/app/contactlab --out build/hostile [--generate] [--jobs 2]
                 [--timeout 20] [--mem-mb 2048] [--only REGEX] [--json FILE]

Each process runs with stdin closed, RLIMIT_AS = --mem-mb, RLIMIT_CPU = --timeout + 5 s (so
the solver's default work budget is 5e8 multiply-adds per second of it) and no core file, killed
(with its process group) after --timeout seconds. Observed classes:

  refused            every command exits 2 and stderr names the file (FILE:LINE: when the
                     manifest gives a line) or the option
  accepted           exit 0; the summary (last stdout line, JSON) and every stats line hold only
                     finite numbers, and no failed step is counted
  failed_reported    run exits 3 and its summary counts failed steps (failures,
                     free_motion_failures) or names the step it stopped at (a non-finite
                     initial state), or run exits 4 and the summary counts steps with
                     divergence warnings
  refused_unlocated  exit 2 without the file / line / option in stderr
  silent_nonfinite   exit 0 with null / NaN / inf in the summary or stats
  unreported_failure exit 0 with failed steps counted in the summary
  failed_uncounted   exit 3 without a count
  crash(SIG...)      killed by a signal
  timeout            still running after --timeout seconds
  memory             std::bad_alloc or the address-space limit hit
  clobbered          a file the case must leave alone was changed
  exit_V/R           any other combination of exit statuses (validate/run)

Exit status 0 when every case's observed class is one of its expected classes, 1 otherwise.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import math
import os
import pathlib
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


class Result:
    def __init__(self):
        self.rc = None
        self.signal = None
        self.timeout = False
        self.maxrss_mb = 0.0
        self.seconds = 0.0
        self.stdout = ""
        self.stderr = ""


def limits(mem_mb, timeout):
    def apply():
        os.setpgrp()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # A CPU-time limit past the wall-clock timeout (which stops the process first): the
        # solver's default work budget follows it (5e8 multiply-adds per second of the limit).
        cpu = int(math.ceil(timeout)) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
        if mem_mb > 0:
            b = mem_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (b, b))
    return apply


def run_process(argv, timeout, mem_mb):
    r = Result()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                             preexec_fn=limits(mem_mb, timeout))
        deadline = t0 + timeout
        status = None
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                r.timeout = True
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.005)
        p.returncode = 0  # reaped above; keeps Popen from waiting again
        r.seconds = time.monotonic() - t0
        r.maxrss_mb = usage.ru_maxrss / 1024.0
        if os.WIFSIGNALED(status):
            r.signal = os.WTERMSIG(status)
        else:
            r.rc = os.WEXITSTATUS(status)
        out.seek(0)
        err.seek(0)
        r.stdout = out.read(4_000_000).decode("utf-8", "replace")
        r.stderr = err.read(200_000).decode("utf-8", "replace")
    return r


def all_finite(x):
    if x is None:
        return False
    if isinstance(x, float):
        return math.isfinite(x)
    if isinstance(x, dict):
        return all(all_finite(v) for v in x.values())
    if isinstance(x, list):
        return all(all_finite(v) for v in x)
    return True


def parse_summary(stdout):
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def failure_count(summary):
    n = 0
    for k, v in summary.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and \
                ("fail" in k or "warning" in k) and v > 0:
            n += v
    return n


def check_stats(path):
    """None if every stats line is finite JSON, else a reason."""
    if not path or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        for i, raw in enumerate(f, 1):
            try:
                j = json.loads(raw)
            except ValueError:
                return "stats line %d is not JSON" % i
            if not all_finite(j):
                return "stats line %d has null/NaN/inf" % i
    return None


def digest(path):
    try:
        return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def subst(args, case_dir):
    return [a.replace("{case}", case_dir) for a in args]


def classify(case, results, case_dir, mem_mb, stats_path):
    """Returns (observed class, detail)."""
    rs = [r for r in results if r is not None]
    for r in rs:
        if r.timeout:
            return "timeout", "after %.0f s" % r.seconds
    for r in rs:
        if r.signal is not None:
            return "crash(%s)" % signal.Signals(r.signal).name, last_line(r.stderr)
    for r in rs:
        if "AddressSanitizer" in r.stderr or "runtime error:" in r.stderr or \
                "LeakSanitizer" in r.stderr:
            return "sanitizer", first_match(r.stderr, r"(ERROR: \w+Sanitizer.*|runtime error:.*)")
        if "bad_alloc" in r.stderr or (mem_mb > 0 and r.maxrss_mb > mem_mb):
            return "memory", "%.0f MB; %s" % (r.maxrss_mb, last_line(r.stderr))
    codes = [r.rc for r in rs]
    v, run = results
    if case.get("unchanged") and case["_digest"] != digest(subst([case["unchanged"]], case_dir)[0]):
        return "clobbered", case["unchanged"] + " was changed"
    if codes and all(c == 2 for c in codes):
        mention = case.get("mention")
        if mention:
            mention = subst([mention], case_dir)[0]
        for r in rs:
            if mention and mention not in r.stderr:
                return "refused_unlocated", "stderr lacks '%s': %s" % (mention, last_line(r.stderr))
            if case.get("line") is not None and mention:
                pat = re.escape(mention) + ":%d:" % case["line"]
                if not re.search(pat, r.stderr):
                    return "refused_unlocated", "stderr lacks '%s:%d:': %s" % (
                        mention, case["line"], last_line(r.stderr))
        return "refused", ""
    if (v is None or v.rc == 0) and run is not None and run.rc in (0, 3, 4):
        summary = parse_summary(run.stdout) if run.stdout.strip() else None
        if run.rc == 3:
            if summary is not None and failure_count(summary) > 0:
                return "failed_reported", "failures %g" % failure_count(summary)
            if summary is not None and "stopped_at_step" in summary and summary.get("stop_reason"):
                return "failed_reported", "stopped at step %s: %s" % (
                    summary["stopped_at_step"], summary["stop_reason"])
            return "failed_uncounted", last_line(run.stdout)
        if run.rc == 4:
            if summary is not None and summary.get("steps_with_warnings", 0) > 0:
                return "failed_reported", "steps with warnings %g" % summary["steps_with_warnings"]
            return "failed_uncounted", last_line(run.stdout)
        if case["run"][0] != "run":
            return "accepted", ""
        if summary is None:
            return "silent_nonfinite", "no JSON summary: " + last_line(run.stdout)
        if not all_finite(summary):
            return "silent_nonfinite", "summary: " + json.dumps(summary)[:200]
        bad = check_stats(stats_path)
        if bad:
            return "silent_nonfinite", bad
        if failure_count(summary) > 0:
            return "unreported_failure", "failures %g with exit 0" % failure_count(summary)
        return "accepted", ""
    if v is not None and run is None and v.rc == 0:
        return "accepted", ""
    return "exit_" + "/".join("-" if r is None else str(r.rc) for r in results), \
        last_line(" ".join(r.stderr for r in rs))


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return (lines[-1] if lines else "")[:200]


def first_match(text, pattern):
    m = re.search(pattern, text)
    return (m.group(0) if m else last_line(text))[:200]


def run_case(case, binary, case_dir, timeout, mem_mb):
    if case.get("unchanged"):
        case["_digest"] = digest(subst([case["unchanged"]], case_dir)[0])
    stats_path = None
    results = []
    for key in ("validate", "run"):
        args = case.get(key)
        if args is None:
            results.append(None)
            continue
        args = subst(args, case_dir)
        if "--stats" in args:
            stats_path = args[args.index("--stats") + 1]
            if os.path.exists(stats_path) and not case.get("unchanged"):
                os.remove(stats_path)
        try:
            r = run_process([binary] + args, timeout, mem_mb)
        except OSError as e:
            return "harness_error", str(e)[:150], 0.0, 0.0
        results.append(r)
        if r.timeout or r.signal is not None:
            results.append(None)  # the case has failed; running it again only costs time
            break
    results = (results + [None, None])[:2]
    observed, detail = classify(case, results, case_dir, mem_mb, stats_path)
    secs = sum(r.seconds for r in results if r)
    rss = max((r.maxrss_mb for r in results if r), default=0)
    return observed, detail, secs, rss


def main():
    ap = argparse.ArgumentParser(description="Runs the hostile-input corpus.")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True, help="corpus directory (generate.py OUT)")
    ap.add_argument("--generate", action="store_true", help="run generate.py first")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per process")
    ap.add_argument("--mem-mb", type=int, default=2048, help="address-space limit per process")
    ap.add_argument("--only", help="regex of case ids to run")
    ap.add_argument("--json", help="write per-case results here")
    ap.add_argument("--no-manifest-check", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="print each case as it finishes")
    a = ap.parse_args()

    out = pathlib.Path(a.out).resolve()
    if a.generate:
        subprocess.run([sys.executable, str(HERE / "generate.py"), str(out)], check=True)
    generated = (out / "manifest.tsv").read_text()
    committed = (HERE / "manifest.tsv").read_text()
    if generated != committed and not a.no_manifest_check:
        import difflib
        sys.stdout.writelines(list(difflib.unified_diff(
            committed.splitlines(True), generated.splitlines(True), "tests/hostile/manifest.tsv",
            str(out / "manifest.tsv")))[:60])
        print("run_hostile: the generated manifest differs from tests/hostile/manifest.tsv; "
              "copy it there if the change is intended")
        return 1
    cases = json.loads((out / "cases.json").read_text())
    if a.only:
        cases = [c for c in cases if re.search(a.only, c["id"])]
    case_dir = str(out / "cases")
    binary = str(pathlib.Path(a.bin).resolve())
    # Heavy cases first so that two workers finish together.
    heavy = re.compile(r"^(size_|scene_bench|huge_|syntax_deep|ref_cycle|mesh_obj_60000|alias)")
    cases.sort(key=lambda c: 0 if heavy.search(c["id"]) else 1)

    t0 = time.monotonic()
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {pool.submit(run_case, c, binary, case_dir, a.timeout, a.mem_mb): c for c in cases}
        for f in concurrent.futures.as_completed(futs):
            c = futs[f]
            observed, detail, secs, rss = f.result()
            ok = observed in c["expect"].split("|")
            if a.verbose:
                print("%-44s %-28s %-18s %.1f s" % (c["id"], c["expect"], observed, secs),
                      flush=True)
            rows.append(dict(id=c["id"], expect=c["expect"], observed=observed, ok=ok,
                             detail=detail, seconds=round(secs, 3), maxrss_mb=round(rss, 1),
                             note=c["note"]))
    wall = time.monotonic() - t0
    rows.sort(key=lambda r: r["id"])

    # Per-class table: expected class -> observed classes.
    table = collections.OrderedDict()
    for r in rows:
        table.setdefault(r["expect"], collections.Counter())[r["observed"]] += 1
    print("hostile corpus: %d cases, %.1f s wall, binary %s" % (len(rows), wall, binary))
    print("%-40s %6s %6s  observed" % ("expected", "cases", "held"))
    for exp, cnt in sorted(table.items()):
        held = sum(n for o, n in cnt.items() if o in exp.split("|"))
        obs = ", ".join("%s %d" % (o, n) for o, n in cnt.most_common())
        print("%-40s %6d %6d  %s" % (exp, sum(cnt.values()), held, obs))
    obs_total = collections.Counter(r["observed"] for r in rows)
    print("observed totals: " + ", ".join("%s %d" % kv for kv in obs_total.most_common()))
    failing = [r for r in rows if not r["ok"]]
    if failing:
        print("\n%d cases do not hold their expected class:" % len(failing))
        for r in failing:
            print("  %-44s expected %-28s observed %-18s %s" % (r["id"], r["expect"], r["observed"],
                                                                r["detail"][:150]))
    slow = sorted(rows, key=lambda r: -r["seconds"])[:5]
    print("\nslowest: " + ", ".join("%s %.1f s" % (r["id"], r["seconds"]) for r in slow))
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(rows, indent=1))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
