#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: reads the "@@" lines of bench/raw/KERNEL.txt (what
bench/guest.sh printed in the VM) and writes bench/results.json,
bench/results.md and the plots bench/*.png (gnuplot). Every figure is a
median over interleaved rounds, with its interquartile range; every ratio
is taken round by round (A and B of the same round), then its median.

    python3 bench/report.py [--show KERNEL] bench/raw/*.txt

It also rewrites the summary in docs/performance.md, between the
"bench:begin" and "bench:end" markers. --show KERNEL (or its older name,
--readme KERNEL): the summary shows that kernel's goals and plots (default:
every kernel's), and names the others.
"""
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# B4's ratios: the result's key and how the tables name it.
B4_COMPARISONS = (("oneshot_json_vs_baseline", "baseline / one `--json` run (loads)"),
                  ("resident_json_vs_baseline", "baseline / one `--json` run (resident)"),
                  ("oneshot_text_vs_ps", "ps / one text run (loads)"),
                  ("resident_text_vs_ps", "ps / one text run (resident)"),
                  ("loaded_walk_vs_baseline", "baseline walk / loaded walk (both in-process)"))


def quartiles(xs):
    xs = sorted(xs)
    if not xs:
        return None
    if len(xs) == 1:
        return {"median": xs[0], "p25": xs[0], "p75": xs[0], "n": 1}
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return {"median": statistics.median(xs), "p25": q[0], "p75": q[2], "n": len(xs)}


def parse(path):
    raw = {"meta": {}, "B1": [], "B2": [], "B3": [], "B4": [], "B5": [], "stats": [], "repeat": {},
           "population": {}, "have": {}, "errors": []}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.startswith("@@"):
                continue
            tag, _, rest = line[2:].partition(" ")
            w = rest.split()
            if tag in ("commit", "date", "host", "accel", "kernel", "cpus", "clocksource", "arch",
                       "hostarch"):
                raw["meta"][tag] = rest
            elif tag == "have":
                raw["have"][w[0]] = " ".join(w[1:])
            elif tag == "error":
                raw["errors"].append(rest)
            elif tag == "repeat":
                raw["repeat"][(w[0], int(w[1]))] = (int(w[2]), int(w[3]))
            elif tag == "population":
                raw["population"][(w[0], int(w[1]))] = " ".join(w[2:])
            elif tag == "stats":
                kv = dict(re.findall(r"(\w+)=([0-9.]+)", rest))
                raw["stats"].append({"label": w[0], "pop": int(w[1]),
                                     **{k: float(v) for k, v in kv.items()}})
            elif tag == "r":
                bench, vals = w[0], w[1:]
                if bench == "B1":
                    raw["B1"].append((vals[0], int(vals[1]), int(vals[2]), int(vals[3])))
                elif bench == "B2":
                    raw["B2"].append((vals[0], vals[1], int(vals[2]), int(vals[3]),
                                      int(vals[4]), int(vals[5])))
                elif bench == "B3":
                    raw["B3"].append((vals[0], vals[1], int(vals[2]), int(vals[3]),
                                      int(vals[4]), int(vals[5]), int(vals[6])))
                elif bench == "B4":
                    raw["B4"].append((vals[0], int(vals[1]), int(vals[2]), int(vals[3]),
                                      int(vals[4])))
                elif bench == "B5":
                    raw["B5"].append((vals[0], vals[1], int(vals[2]), int(vals[3]),
                                      float(vals[4])))
    return raw


def by_round(rows, key):
    """{round: value} for the rows whose key matches."""
    return {r: v for k, r, v in rows if k == key}


def ratios(a, b):
    """Round-by-round a/b over the rounds both have."""
    return [a[r] / b[r] for r in a if r in b and b[r] > 0]


def b1(raw):
    out = {"forms": {}, "ratio_kit_num": {}}
    t = {}
    for form, n, rnd, ns in raw["B1"]:
        t.setdefault(form, {}).setdefault(n, {})[rnd] = ns
    fixed = {f: statistics.median(v[0].values()) for f, v in t.items() if 0 in v}
    for form, per_n in t.items():
        for n, rounds in sorted(per_n.items()):
            if n == 0:
                continue
            marginal = [(ns - fixed.get(form, 0)) / n for ns in rounds.values()]
            out["forms"].setdefault(form, {})[n] = quartiles(marginal)
    if "kit_num" in t and "bpf_iter_num" in t:
        for n in sorted(t["kit_num"]):
            if n == 0 or n not in t["bpf_iter_num"]:
                continue
            k, m = t["kit_num"][n], t["bpf_iter_num"][n]
            # the loop's own cost: what each form adds over its empty loop
            r = [(k[x] - fixed["kit_num"]) / (m[x] - fixed["bpf_iter_num"])
                 for x in k if x in m and m[x] - fixed["bpf_iter_num"] > 0]
            out["ratio_kit_num"][n] = quartiles(r)
    out["fixed_ns"] = fixed
    return out


def b2(raw):
    out = {}
    t = {}
    for walk, it, pop, rnd, ns, count in raw["B2"]:
        t.setdefault((walk, pop), {}).setdefault(it, {})[rnd] = (ns, count)
    for (walk, pop), its in sorted(t.items(), key=lambda x: (x[0][1], x[0][0])):
        names = sorted(its, key=lambda s: not s.startswith("kit_"))
        kit, ker = names[0], names[1]
        per = {it: {r: ns / max(c, 1) for r, (ns, c) in v.items()} for it, v in its.items()}
        out.setdefault(f"{walk}@{pop}", {
            "walk": walk, "population": pop, "kit": kit, "kernel": ker,
            "count": statistics.median(c for _, c in its[kit].values()),
            "kit_ns": quartiles(list(per[kit].values())),
            "kernel_ns": quartiles(list(per[ker].values())),
            "ratio": quartiles(ratios(per[kit], per[ker])),
        })
    return out


def b5(raw):
    """kit_cgroup's id lookup: ns per new(), syscall against raw_tp, per case and population."""
    out = {}
    t = {}
    for case, ctx, pop, rnd, ns in raw["B5"]:
        t.setdefault((case, pop), {}).setdefault(ctx, {})[rnd] = ns
    for (case, pop), ctxs in sorted(t.items(), key=lambda x: (x[0][0], x[0][1])):
        if "syscall" not in ctxs or "raw_tp" not in ctxs:
            continue
        out[f"{case}@{pop}"] = {
            "case": case, "population": pop,
            "syscall_ns": quartiles(list(ctxs["syscall"].values())),
            "raw_tp_ns": quartiles(list(ctxs["raw_tp"].values())),
            "ratio": quartiles(ratios(ctxs["raw_tp"], ctxs["syscall"])),
        }
    return out


def b3(raw):
    progs = {p: {"object": o, "insns": i, "states": s, "peak_states": pk, "verify_us": us,
                 "prog_insns": size} for o, p, i, s, pk, us, size in raw["B3"]}
    out = {"programs": progs}

    def ratio(a, b, field):
        if a in progs and b in progs and progs[b][field]:
            return progs[a][field] / progs[b][field]
        return None
    out["loop_insns_kit_vs_num"] = ratio("loop_kit_num", "loop_num", "insns")
    out["loop_peak_states_kit_vs_num"] = ratio("loop_kit_num", "loop_num", "peak_states")
    out["v600_insns_kit_for_vs_unrolled"] = ratio("v600_kit_for", "v600_unrolled", "insns")
    out["v600_insns_kit_for_vs_bounded"] = ratio("v600_kit_for", "v600_bounded", "insns")
    out["v600_insns_kit_for_vs_bpf_for"] = ratio("v600_kit_for", "v600_bpf_for", "insns")
    return out


def floor(raw):
    """What starting a process costs in the VM (true, iterkit --version), ms."""
    t = {}
    for label, rnd, ns, rss, status in raw["B4"]:
        if label.startswith("floor-"):
            t.setdefault(label[len("floor-"):].rsplit("-", 1)[0], []).append(ns / 1e6)
    return {k: quartiles(v) for k, v in t.items()}


def skel(raw):
    """The tasks program loaded in a fresh process, per way of loading it, ms."""
    t = {}
    for label, rnd, ns, rss, status in raw["B4"]:
        if label.startswith("skel-") and not status:
            t.setdefault(label[len("skel-"):].rsplit("-", 1)[0], {})[rnd] = ns / 1e6
    out = {k: quartiles(list(v.values())) for k, v in t.items()}
    if "light" in t and "libbpf" in t:
        out["libbpf_vs_light"] = quartiles(ratios(t["libbpf"], t["light"]))
    return out


def b4(raw):
    rows = {}
    for label, rnd, ns, rss, status in raw["B4"]:
        m = re.match(r"(.*)-(\d+)$", label)
        name, pop = m.group(1), int(m.group(2))
        what = "cgroups" if name.startswith(("cgroups", "cgroupfs")) else \
            "floor" if name.startswith("floor") else "tasks"
        rows.setdefault((what, pop), {}).setdefault(name, {})[rnd] = (ns / 1e6, rss, status)
    out = {}
    for what in ("tasks", "cgroups"):
        base = "procfs_tasks" if what == "tasks" else "cgroupfs_walk"
        for w, pop in sorted(rows):
            r = rows[(w, pop)]
            if w != what or f"{what}-json" not in r:
                continue
            ms = {n: {k: v[0] for k, v in rr.items()} for n, rr in r.items()}
            failed = sorted(n for n, rr in r.items() for v in rr.values() if v[2])
            e = {"population": pop, "what": what, "failed": failed,
                 "ms": {n: quartiles(list(v.values())) for n, v in ms.items()},
                 "peak_rss_kib": {n: max(v[1] for v in rr.values()) for n, rr in r.items()}}
            rk, rb = raw["repeat"].get((what, pop), (None, None))
            # one load, R walks: (T(R) - T(1)) / (R - 1) per walk, round by round
            if rk and f"{what}-walkR" in ms and f"{what}-walk1" in ms:
                kw = {x: (ms[f"{what}-walkR"][x] - ms[f"{what}-walk1"][x]) / (rk - 1)
                      for x in ms[f"{what}-walkR"] if x in ms[f"{what}-walk1"]}
                bw = {x: (ms[f"{base}-walkR"][x] - ms[f"{base}-walk1"][x]) / (rb - 1)
                      for x in ms.get(f"{base}-walkR", {}) if x in ms.get(f"{base}-walk1", {})}
                e["loaded_walk_ms"] = quartiles(list(kw.values()))
                e["baseline_walk_ms"] = quartiles(list(bw.values()))
                # a difference lost in the noise of starting a process is no figure
                if min(e["loaded_walk_ms"]["median"], e["baseline_walk_ms"]["median"]) > 0:
                    e["loaded_walk_vs_baseline"] = quartiles(ratios(bw, kw))
            e["oneshot_json_vs_baseline"] = quartiles(ratios(ms[base], ms[f"{what}-json"])) \
                if base in ms else None
            e["resident_json_vs_baseline"] = quartiles(
                ratios(ms[base], ms[f"{what}-resident-json"])) \
                if base in ms and f"{what}-resident-json" in ms else None
            if "ps" in ms:
                e["oneshot_text_vs_ps"] = quartiles(ratios(ms["ps"], ms[f"{what}-text"]))
                e["resident_text_vs_ps"] = quartiles(ratios(ms["ps"], ms[f"{what}-resident-text"]))
            e["stats"] = {s["label"].split("-", 1)[1]: s for s in raw["stats"]
                          if s["pop"] == pop and s["label"].startswith(what + "-")}
            out[f"{what}@{pop}"] = e
    return out


# ---- goals ----

def goals(res, kver):
    g = []

    def add(name, value, ok, goal, note=""):
        g.append({"goal": name, "target": goal, "measured": value, "met": ok, "note": note})
    r = res["B1"]["ratio_kit_num"]
    # From 7.3 the verifier inlines bpf_iter_num_*: the ratio is the point of comparison there,
    # the goal is for the kernels where both are kfunc calls (6.12 ... 7.2).
    m = re.match(r"(\d+)\.(\d+)", kver)
    inlined = bool(m) and (int(m.group(1)), int(m.group(2))) >= (7, 3)
    for n in sorted(x for x in r if x >= 1000):
        q = r[n]
        iqr_ok = q["p25"] >= q["median"] * 0.95 and q["p75"] <= q["median"] * 1.05
        add(f"B1 kit_num/bpf_iter_num per element, N={n}", q,
            None if inlined else q["median"] <= 1.05 and iqr_ok,
            "measured (bpf_iter_num inlined here)" if inlined else "<= 1.05, IQR within +-5 %")
    f = res["B1"]["forms"].get("kit_num", {})
    flat = [f[x]["median"] for x in f if 100 <= x <= 100000]
    if flat:
        add("B1 kit_num per element flat in N (max/min, N = 10^2..10^5)", max(flat) / min(flat),
            max(flat) / min(flat) <= 1.1, "<= 1.1")
    for k, v in res["B2"].items():
        # every population: 100, 1k and 10k tasks, 100 and 1k cgroups
        if v["ratio"]:
            add(f"B2 {v['kit']}/{v['kernel']} {v['walk']} at {v['population']}", v["ratio"],
                v["ratio"]["median"] <= 1.10, "<= 1.10")
    b3r = res["B3"]
    if b3r["loop_insns_kit_vs_num"] is not None:
        v = b3r["loop_insns_kit_vs_num"]
        add("B3 insns processed, kit_num loop / bpf_iter_num loop", v, abs(v - 1) < 0.005, "1.00")
    if b3r["v600_insns_kit_for_vs_unrolled"] is not None:
        v = b3r["v600_insns_kit_for_vs_unrolled"]
        add("B3 insns processed, 600 steps: kit_for / unrolled", v, v <= 1 / 50, "<= 0.02 (1/50)")
    t = res["B4"]
    top = max((v["population"] for v in t.values() if v["what"] == "tasks"), default=None)
    if top:
        e = t[f"tasks@{top}"]
        if e.get("oneshot_text_vs_ps"):
            add(f"B4 one `iterkit tasks` run vs `ps -e` at {top} tasks", e["oneshot_text_vs_ps"],
                e["oneshot_text_vs_ps"]["median"] >= 3, ">= 3x faster")
        if e.get("loaded_walk_vs_baseline"):
            add(f"B4 a walk with the program loaded vs the /proc reader at {top} tasks",
                e["loaded_walk_vs_baseline"], e["loaded_walk_vs_baseline"]["median"] >= 50,
                ">= 50x faster")
    cg = t.get("cgroups@1000")
    if cg:
        add("B4 one `iterkit cgroups` run vs the cgroupfs walk at 1000 cgroups",
            cg["oneshot_json_vs_baseline"], cg["oneshot_json_vs_baseline"]["median"] >= 20,
            ">= 20x faster")
        if cg.get("resident_json_vs_baseline"):
            add("B4 one `iterkit cgroups` run, programs resident, vs the cgroupfs walk at 1000",
                cg["resident_json_vs_baseline"], cg["resident_json_vs_baseline"]["median"] >= 20,
                ">= 20x faster")
        if cg.get("loaded_walk_vs_baseline"):
            add("B4 a cgroup walk with the program loaded vs the cgroupfs walk at 1000",
                cg["loaded_walk_vs_baseline"], cg["loaded_walk_vs_baseline"]["median"] >= 20,
                ">= 20x faster")
    for k, v in res["B5"].items():
        if v["case"] == "own" and v["ratio"]:
            add(f"B5 new() for the caller's own cgroup, raw_tp / syscall, {v['population']} cgroups ahead",
                v["ratio"], v["ratio"]["median"] <= 2, "<= 2")
    return g


# ---- output ----

def ratios_only(res):
    """A VM of another architecture than the host's emulates every instruction
    of it: its times say nothing about that architecture, only its ratios do."""
    m = res["meta"]
    return bool(m.get("arch")) and bool(m.get("hostarch")) and m["arch"] != m["hostarch"]


def verdict(met):
    return "-" if met is None else "yes" if met else "**no**"


def fq(q, unit="", digits=2):
    if not q:
        return "n/a"
    if isinstance(q, (int, float)):
        return f"{q:.{digits}f}{unit}"
    return f"{q['median']:.{digits}f}{unit} ({q['p25']:.{digits}f}-{q['p75']:.{digits}f})"


def goal_rows(res):
    rows = ["| goal | target | measured | met |", "|---|---|---|---|"]
    for g in res["goals"]:
        rows.append(f"| {g['goal']} | {g['target']} | {fq(g['measured'], '', 3)} | "
                    f"{verdict(g['met'])} |")
    return rows


def markdown(all_res):
    md = ["# Benchmark results", "",
          "Written by `make bench` (bench/run, bench/report.py) from bench/raw/. Each figure is",
          "the median over interleaved rounds with its interquartile range in parentheses;",
          "ratios are taken within a round, then their median. The VM runs under emulation",
          "(TCG) unless the header says kvm: absolute times mean little, ratios are the result.",
          ""]
    for kver, res in all_res.items():
        m = res["meta"]
        md += [f"## Linux {kver}", "",
               f"commit {m.get('commit', '?')}, {m.get('date', '?')}; VM: {m.get('accel', '?')}, "
               f"{m.get('cpus', '?')} vCPUs, clocksource {m.get('clocksource', '?')}; "
               f"host: {m.get('host', '?')}", ""]
        if res["errors"]:
            md += ["Errors during the run: " + "; ".join(res["errors"]), ""]
        md += ["### Goals", ""] + goal_rows(res)
        if ratios_only(res):
            md += ratio_sections(kver, res)
            continue
        md += ["", "### B1: per-element cost of a loop, ns (inside the program, less the empty loop)",
               "", "| N | kit_num | bpf_iter_num | bpf_loop | for | kit_num / bpf_iter_num |",
               "|---|---|---|---|---|---|"]
        f = res["B1"]["forms"]
        ns = sorted({n for v in f.values() for n in v})
        for n in ns:
            md.append(f"| {n} | " + " | ".join(fq(f.get(x, {}).get(n)) for x in
                                                 ("kit_num", "bpf_iter_num", "bpf_loop", "for"))
                      + f" | {fq(res['B1']['ratio_kit_num'].get(n), '', 3)} |")
        md += ["", "The bounded `for` loop stops at N = 4000: the verifier walks each of its",
               "iterations, and past about 4,000 it exceeds its limit of 8,192 jumps per path.", ""]
        md += ["### B2: walkers, ns per element", "",
               "| walk | population | elements | kit | kernel | kit / kernel |", "|---|---|---|---|---|---|"]
        for v in res["B2"].values():
            md.append(f"| {v['walk']} ({v['kit']} vs {v['kernel']}) | {v['population']} | "
                      f"{v['count']:.0f} | {fq(v['kit_ns'])} | {fq(v['kernel_ns'])} | "
                      f"{fq(v['ratio'], '', 3)} |")
        if res["B5"]:
            md += ["", "### B5: kit_cgroup's id lookup, ns per new()", "",
                   "`own`: the caller's own cgroup, every other cgroup ahead of it in pre-order "
                   "(read from the task, O(depth), in every context). `newest`: a cgroup created "
                   "after all the others, a tenth as many of them dying: from a syscall program "
                   "the kernel's id table, from a raw_tp (not preemptible) the pre-order walk "
                   "over every cgroup created before it, its worst case.", "",
                   "| case | cgroups | syscall | raw_tp | raw_tp / syscall | population |",
                   "|---|---|---|---|---|---|"]
            for v in res["B5"].values():
                md.append(f"| {v['case']} | {v['population']} | {fq(v['syscall_ns'])} | "
                          f"{fq(v['raw_tp_ns'])} | {fq(v['ratio'], '', 3)} | "
                          f"{res['population'].get(('lookup', v['population']), '')} |")
        md += ["", "### B3: verification cost (the verifier's statistics)", "",
               "| program | insns processed | total states | peak states | verification, us | program insns |",
               "|---|---|---|---|---|---|"]
        for p, v in res["B3"]["programs"].items():
            md.append(f"| {p} | {v['insns']} | {v['states']} | {v['peak_states']} | "
                      f"{v['verify_us']} | {v['prog_insns']} |")
        md += ["", "### B4: the loader, ms per command (whole process)", ""]
        if res["floor"]:
            md += ["Starting a process at all: " + ", ".join(
                f"`{k}` {fq(v, ' ms', 1)}" for k, v in sorted(res["floor"].items())) + ".", ""]
        sk = res.get("skel", {})
        if "light" in sk and "libbpf" in sk:
            md += ["Loading the tasks program in a fresh process (whole runs of `skel_load`): "
                   f"light skeleton {fq(sk['light'], ' ms', 1)}, libbpf's bpf_object "
                   f"{fq(sk['libbpf'], ' ms', 1)}; libbpf / light "
                   f"{fq(sk['libbpf_vs_light'], 'x', 2)}.", ""]
        for k, e in res["B4"].items():
            what, pop = e["what"], e["population"]
            md += [f"**{what}, {pop}** ({res['population'].get((what, pop), '')})", "",
                   "| command | ms | peak RSS, KiB |", "|---|---|---|"]
            for name, q in sorted(e["ms"].items()):
                md.append(f"| {name} | {fq(q, '', 1)} | {e['peak_rss_kib'][name]} |")
            md += ["", "| comparison | ratio |", "|---|---|"]
            for key, text in B4_COMPARISONS:
                if e.get(key):
                    md.append(f"| {text} | {fq(e[key], 'x', 1)} |")
            if e.get("loaded_walk_ms"):
                md.append(f"| loaded walk, ms (iterkit / baseline) | {fq(e['loaded_walk_ms'], '', 2)} / "
                          f"{fq(e['baseline_walk_ms'], '', 1)} |")
            for mode, s in sorted(e["stats"].items()):
                phases = ", ".join(f"{k} {s[k]:.1f}" for k in
                                   ("start", "load", "open", "walk", "format", "write") if k in s)
                md.append(f"| --stats, {mode} | {phases} ms; maps {s.get('map_bytes', 0) / 1024:.0f} KiB, "
                          f"peak RSS {s.get('peak_rss_kib', 0):.0f} KiB, {s.get('records', 0):.0f} records |")
            if e["failed"]:
                md.append(f"| commands that exited non-zero | {', '.join(e['failed'])} |")
            md.append("")
        for png in res["plots"]:
            md += [f"![{png}]({png})", ""]
        md += [f"Raw data: [raw/{kver}.txt](raw/{kver}.txt). procps ps in the VM: "
               f"{res['have'].get('ps', 'none')}; systemd-cgls: {res['have'].get('systemd-cgls', 'none')}.", ""]
    return "\n".join(md)


def ratio_sections(kver, res):
    """B1-B4 of an emulated foreign architecture: ratios and counts, no times."""
    m = res["meta"]
    md = ["", f"The VM emulates {m['arch']} on this {m['hostarch']} host instruction by "
          "instruction, so only ratios (taken within a round) and the verifier's counts "
          "are shown.", "",
          "### B1: kit_num / bpf_iter_num, per element", "", "| N | ratio |", "|---|---|"]
    for n, q in sorted(res["B1"]["ratio_kit_num"].items()):
        md.append(f"| {n} | {fq(q, '', 3)} |")
    md += ["", "### B2: walkers, kit / kernel per element", "",
           "| walk | population | elements | kit / kernel |", "|---|---|---|---|"]
    for v in res["B2"].values():
        md.append(f"| {v['walk']} ({v['kit']} vs {v['kernel']}) | {v['population']} | "
                  f"{v['count']:.0f} | {fq(v['ratio'], '', 3)} |")
    md += ["", "### B3: verification (the verifier's counts)", "",
           "| program | insns processed | total states | peak states | program insns |",
           "|---|---|---|---|---|"]
    for p, v in res["B3"]["programs"].items():
        md.append(f"| {p} | {v['insns']} | {v['states']} | {v['peak_states']} | {v['prog_insns']} |")
    md += ["", "### B4: the loader against its baselines", "",
           "| population | comparison | ratio |", "|---|---|---|"]
    for e in res["B4"].values():
        for key, text in B4_COMPARISONS:
            if e.get(key):
                md.append(f"| {e['what']}, {e['population']} | {text} | {fq(e[key], 'x', 1)} |")
    md += ["", f"Raw data: [raw/{kver}.txt](raw/{kver}.txt). procps ps in the VM: "
           f"{res['have'].get('ps', 'none')}.", ""]
    return md


def plots(kver, res, outdir):
    """PNGs through gnuplot; returns their names (none if gnuplot is missing)."""
    made = []
    data = os.path.join(outdir, "..", "build", "bench", "plot")
    os.makedirs(data, exist_ok=True)
    forms = res["B1"]["forms"]
    b1dat = os.path.join(data, f"b1-{kver}.dat")
    with open(b1dat, "w") as f:
        for n in sorted({n for v in forms.values() for n in v}):
            f.write(f"{n} " + " ".join(
                f"{forms.get(x, {}).get(n, {}).get('median', float('nan')):.4f}"
                for x in ("kit_num", "bpf_iter_num", "bpf_loop", "for")) + "\n")
    b4dat = os.path.join(data, f"b4-{kver}.dat")
    with open(b4dat, "w") as f:
        for k, e in sorted(res["B4"].items(), key=lambda x: x[1]["population"]):
            if e["what"] != "tasks":
                continue

            def med(name):
                q = e["ms"].get(name)
                return q["median"] if q else float("nan")
            lw = e.get("loaded_walk_ms")
            f.write(f"{e['population']} {med('tasks-json'):.3f} {med('tasks-resident-json'):.3f} "
                    f"{lw['median'] if lw else float('nan'):.3f} {med('procfs_tasks'):.3f} "
                    f"{med('ps'):.3f}\n")
    script = f"""
set terminal pngcairo size 900,560 font ",11"
set logscale x
set grid
set key top left
set output "{outdir}/b1-{kver}.png"
set title "B1: ns per element, Linux {kver} (VM: {res['meta'].get('accel', '?')})"
set xlabel "N (elements)"
set ylabel "ns per element"
plot "{b1dat}" using 1:2 with linespoints title "kit\\\\_num", \\
     "" using 1:3 with linespoints title "bpf\\\\_iter\\\\_num", \\
     "" using 1:4 with linespoints title "bpf\\\\_loop", \\
     "" using 1:5 with linespoints title "bounded for"
set output "{outdir}/b4-{kver}.png"
set logscale y
set title "B4: listing tasks, ms, Linux {kver} (VM: {res['meta'].get('accel', '?')})"
set xlabel "tasks"
set ylabel "ms (log)"
plot "{b4dat}" using 1:5 with linespoints title "/proc reader (C)", \\
     "" using 1:6 with linespoints title "ps -e -o pid,ppid,comm", \\
     "" using 1:2 with linespoints title "iterkit tasks --json (loads)", \\
     "" using 1:3 with linespoints title "iterkit tasks --json (resident)", \\
     "" using 1:4 with linespoints title "one walk, program loaded"
"""
    if not forms or not os.path.getsize(b4dat):
        return made
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        made = [f"b1-{kver}.png", f"b4-{kver}.png"]
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report: no plots ({e})", file=sys.stderr)
    return made


# The summary's page, and the links in it relative to that page.
SUMMARY_DOC = os.path.join(HERE, "..", "docs", "performance.md")


def summary_block(all_res, only=None):
    """The goals and plots of one kernel (or of every one), for docs/performance.md."""
    md = []
    shown = [k for k in all_res if not only or k == only] or list(all_res)
    for kver in shown:
        res = all_res[kver]
        m = res["meta"]
        md += [f"**Linux {kver}** (commit {m.get('commit', '?')}, {m.get('date', '?')}, VM: "
               f"{m.get('accel', '?')}):", ""] + goal_rows(res)
        md.append("")
        md += [f"![{p}](../bench/{p})" for p in res["plots"]]
        md.append("")
    others = [k for k in all_res if k not in shown]
    if others:
        md += ["Also measured, in [bench/results.md](../bench/results.md): " +
               ", ".join(f"Linux {k}" for k in others) + ".", ""]
    md.append("Medians, interquartile ranges in parentheses; why a goal is missed, and what "
              "would close it: [below](#goals-that-do-not-hold-and-why).")
    return "\n".join(md)


def update_summary(all_res, only=None):
    path = SUMMARY_DOC
    try:
        text = open(path, encoding="utf-8").read()
    except OSError:
        return
    begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
    if begin not in text or end not in text:
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + begin + "\n" + summary_block(all_res, only) + "\n" + end + tail)


def main():
    args = sys.argv[1:]
    only = None
    if len(args) >= 2 and args[0] in ("--show", "--readme"):
        only, args = args[1], args[2:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    all_res = {}
    for path in args:
        kver = os.path.basename(path)[:-4] if path.endswith(".txt") else os.path.basename(path)
        raw = parse(path)
        res = {"meta": raw["meta"], "errors": raw["errors"], "have": raw["have"],
               "population": raw["population"], "B1": b1(raw), "B2": b2(raw), "B3": b3(raw),
               "B4": b4(raw), "B5": b5(raw), "floor": floor(raw), "skel": skel(raw)}
        res["goals"] = goals(res, kver)
        res["plots"] = [] if ratios_only(res) else plots(kver, res, HERE)
        all_res[kver] = res
    with open(os.path.join(HERE, "results.md"), "w") as f:
        f.write(markdown(all_res))
    update_summary(all_res, only)
    for res in all_res.values():
        res["population"] = {f"{w}@{p}": v for (w, p), v in res["population"].items()}
    with open(os.path.join(HERE, "results.json"), "w") as f:
        json.dump(all_res, f, indent=1, sort_keys=True, default=str)
    for kver, res in all_res.items():
        print(f"{kver}:")
        for g in res["goals"]:
            print(f"  {'    ' if g['met'] is None else 'met ' if g['met'] else 'MISS'} {g['goal']}: {fq(g['measured'], '', 3)} "
                  f"(goal {g['target']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
