"""What experiments/memcached_vs_kvcache.py concludes from its points: per server the rate it
sustained in each repeat of the ladder, medians over the repeats, and the verdict on quanta's
target (memcached's throughput per core at an equal or lower p99), paired repeat by repeat:
at memcached's ceiling, and as the rate each server sustained under each of several p99
bounds.

Pure functions of the points the script records (dicts with server, transport, rate_rps,
repeat, answered_share, overloaded, p99_us, requests_per_cpu_s), so that they can be tested
without running a server. A point without "repeat" (a result written before --repeat) is
repeat 0. A p99 that is not a number is the client's "inf" (dropped requests reached the
percentile) and counts as infinitely large.
"""
import math
import statistics

MEMCACHED = "memcached"


def server_order(names, repeat):
    # Each rate runs the servers one right after the other; which one comes first sees the
    # host as the previous run left it (a busy CPU, a warm cache). Reversing the order on odd
    # repeats keeps that from favouring the same server every time.
    return list(names) if repeat % 2 == 0 else list(reversed(names))


def repeat_of(point):
    return point.get("repeat", 0)


def repeats_in(points):
    return sorted({repeat_of(p) for p in points})


def latency_us(value):
    # The client reports a percentile as a number, or as "inf" when dropped requests reach it.
    return float(value) if isinstance(value, (int, float)) else math.inf


def json_number(value):
    # JSON has no infinity: write it as the client does.
    return "inf" if value == math.inf else value


def median(values):
    # None when there is nothing to take a median of; with an even count, the mean of the
    # middle two (so two repeats' median sustained rate may fall between rungs).
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def point_at(points, server, transport, repeat, rate_rps):
    for p in points:
        if (p["server"] == server and p["transport"] == transport and repeat_of(p) == repeat
                and p["rate_rps"] == rate_rps):
            return p
    return None


def sustained_rps(points, server, transport, repeat, max_p99_us):
    # The largest offered rate of this repeat's ladder at which at least 99% were answered,
    # nothing was overloaded, and the p99 stayed bounded (over TCP nothing is dropped: a
    # server behind only queues). 0 when no rate qualifies.
    ok = [p["rate_rps"] for p in points
          if p["server"] == server and p["transport"] == transport and repeat_of(p) == repeat
          and p["answered_share"] >= 0.99 and p.get("overloaded", 0) == 0
          and latency_us(p["p99_us"]) <= max_p99_us]
    return max(ok) if ok else 0


def p99_by_rate(points, server, transport):
    # Per offered rate: (rate, median, min, max) of the p99 over the repeats that ran it.
    rates = sorted({p["rate_rps"] for p in points if p["server"] == server and p["transport"] == transport})
    rows = []
    for rate in rates:
        p99s = [latency_us(p["p99_us"]) for p in points
                if p["server"] == server and p["transport"] == transport and p["rate_rps"] == rate]
        rows.append((rate, median(p99s), min(p99s), max(p99s)))
    return rows


def server_summary(points, server, transport, max_p99_us):
    per_repeat = []
    for repeat in repeats_in(points):
        rate = sustained_rps(points, server, transport, repeat, max_p99_us)
        at = point_at(points, server, transport, repeat, rate) if rate else None
        per_repeat.append({
            "repeat": repeat,
            "sustained_rps": rate,
            "p99_us": latency_us(at["p99_us"]) if at else None,
            "requests_per_cpu_s": at.get("requests_per_cpu_s") if at else None,
        })
    return {
        "sustained_rps": median(r["sustained_rps"] for r in per_repeat),
        "p99_us_at_sustained": median(r["p99_us"] for r in per_repeat),
        "requests_per_cpu_s_at_sustained": median(r["requests_per_cpu_s"] for r in per_repeat),
        "p99_us_by_rate": [{"rate_rps": rate, "median": json_number(mid), "min": json_number(low),
                            "max": json_number(high)}
                           for rate, mid, low, high in p99_by_rate(points, server, transport)],
        "per_repeat": per_repeat,
    }


def verdict(points, server, transport, max_p99_us):
    # Repeat by repeat, against memcached's run of the same repeat (the same stretch of the
    # host's noise): the target is met when quanta sustained at least memcached's rate and
    # its p99 at memcached's sustained rate was no higher than memcached's there. A repeat in
    # which memcached sustained no rate of the ladder (or quanta did not run that rate) has
    # no ceiling to compare at and gives no verdict ("met": None).
    rows = []
    for repeat in repeats_in(points):
        mc_rps = sustained_rps(points, MEMCACHED, transport, repeat, max_p99_us)
        q_rps = sustained_rps(points, server, transport, repeat, max_p99_us)
        mc_at = point_at(points, MEMCACHED, transport, repeat, mc_rps) if mc_rps else None
        q_at_mc = point_at(points, server, transport, repeat, mc_rps) if mc_rps else None
        met, p99_ratio, mc_p99, q_p99 = None, None, None, None
        if mc_at is not None and q_at_mc is not None:
            mc_p99, q_p99 = latency_us(mc_at["p99_us"]), latency_us(q_at_mc["p99_us"])
            met = q_rps >= mc_rps and q_p99 <= mc_p99
            p99_ratio = q_p99 / mc_p99 if mc_p99 > 0 else None
        # Work per CPU-second, each server at its own sustained rate of this repeat.
        q_own = point_at(points, server, transport, repeat, q_rps) if q_rps else None
        mc_cpu = mc_at.get("requests_per_cpu_s") if mc_at else None
        q_cpu = q_own.get("requests_per_cpu_s") if q_own else None
        rows.append({
            "repeat": repeat, "memcached_sustained_rps": mc_rps, "quanta_sustained_rps": q_rps,
            "memcached_p99_us_at_memcached_sustained": mc_p99,
            "quanta_p99_us_at_memcached_sustained": q_p99,
            "p99_ratio": p99_ratio,
            "requests_per_cpu_s_ratio": q_cpu / mc_cpu if q_cpu and mc_cpu else None,
            "met": met,
        })
    return {
        "met_repeats": sum(1 for r in rows if r["met"] is True),
        "repeats": len(rows),
        "no_verdict_repeats": sum(1 for r in rows if r["met"] is None),
        "p99_ratio_at_memcached_sustained_median": median(r["p99_ratio"] for r in rows),
        "requests_per_cpu_s_ratio_median": median(r["requests_per_cpu_s_ratio"] for r in rows),
        "per_repeat": rows,
    }


def under_bounds(points, server, transport, bounds_us):
    # For each p99 bound, the rate each server sustained under it, repeat by repeat, by the
    # one rule (sustained_rps) for both: the field's throughput at a latency objective. It
    # asks the target's question from both sides alike. The comparison at memcached's
    # ceiling does not: its rate is picked as the highest whose p99 came in under the bound,
    # so memcached's p99 there is one that was lucky enough, quanta's at the same rate is
    # whatever the host made it. A repeat in which neither sustained any rate of the ladder
    # under a bound says nothing about it and is counted apart.
    rows = []
    for bound in bounds_us:
        per_repeat = [{"repeat": r, "memcached_rps": sustained_rps(points, MEMCACHED, transport, r, bound),
                       "quanta_rps": sustained_rps(points, server, transport, r, bound)}
                      for r in repeats_in(points)]
        rows.append({
            "p99_bound_us": bound,
            "memcached_rps_median": median(r["memcached_rps"] for r in per_repeat),
            "quanta_rps_median": median(r["quanta_rps"] for r in per_repeat),
            "quanta_at_least_repeats": sum(1 for r in per_repeat
                                           if r["quanta_rps"] >= r["memcached_rps"] and r["quanta_rps"] > 0),
            "neither_repeats": sum(1 for r in per_repeat if r["quanta_rps"] == r["memcached_rps"] == 0),
            "repeats": len(per_repeat),
            "per_repeat": per_repeat,
        })
    return rows


def krps(value):
    # A rate in thousands per second ("-" for a median of nothing).
    return "-" if value is None else f"{value / 1000:g}k"


def bound_ms_text(bound_us):
    return f"{bound_us / 1000:g} ms"


def under_bounds_text(server, transport, rows):
    cells = []
    for row in rows:
        cell = (f"{bound_ms_text(row['p99_bound_us'])} {krps(row['quanta_rps_median'])} / "
                f"{krps(row['memcached_rps_median'])} (at least in {row['quanta_at_least_repeats']} "
                f"of {row['repeats']}")
        cells.append(cell + (f", {row['neither_repeats']} with neither)" if row["neither_repeats"] else ")"))
    return (f"{server}, {transport}: rate sustained under a p99 bound, quanta / memcached, median over repeats: "
            + "; ".join(cells))


def ratio_text(value):
    # A ratio as the summary holds it: a number, None (none to take) or "inf".
    if isinstance(value, str):
        return value
    return "-" if value is None else "inf" if value == math.inf else f"{value:.2f}"


def verdict_text(server, transport, v):
    text = f"{server}, {transport}: target met in {v['met_repeats']} of {v['repeats']} repeats"
    if v["no_verdict_repeats"]:
        text += f" ({v['no_verdict_repeats']} without a verdict: no memcached ceiling to compare at)"
    return (text + f"; p99 at memcached's ceiling, quanta / memcached: median "
            f"{ratio_text(v['p99_ratio_at_memcached_sustained_median'])}; requests per CPU-second, "
            f"quanta / memcached: median {ratio_text(v['requests_per_cpu_s_ratio_median'])}")


def with_json_numbers(value):
    # Infinities anywhere in a summary, as "inf" (json.dumps would write a bare Infinity).
    if isinstance(value, dict):
        return {k: with_json_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [with_json_numbers(v) for v in value]
    return json_number(value) if isinstance(value, float) else value


def summarise_repeats(points, names, transports, max_p99_us, bounds_us=()):
    """The JSON summary: per server and transport the medians over repeats, and per quanta
    server and transport the verdict against memcached (with its line of text) and the rates
    both sustained under each p99 bound of bounds_us (with theirs)."""
    servers, verdicts = {}, {}
    for transport in transports:
        for name in names:
            servers[f"{name}_{transport}"] = server_summary(points, name, transport, max_p99_us)
            if name != MEMCACHED:
                v = verdict(points, name, transport, max_p99_us)
                v["text"] = verdict_text(name, transport, v)
                v["under_p99_bounds"] = under_bounds(points, name, transport, bounds_us)
                v["under_p99_bounds_text"] = under_bounds_text(name, transport, v["under_p99_bounds"])
                verdicts[f"{name}_{transport}"] = v
    return with_json_numbers({"repeats": len(repeats_in(points)), "servers": servers, "verdict": verdicts})
