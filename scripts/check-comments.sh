#!/usr/bin/env bash
# Comments say why, not when: fails, naming file:line, where a comment in the code carries history
# or measurements, which belong in commit messages and docs/ (performance.md, measurements-log.md).
# Flagged: "session <n>"; commit hashes (7-12 lowercase hex digits with a digit and a letter, or any
# digits after "commit"); dates (2026-12-06); timings with decimals, ranges, arrows, comparisons or
# a tilde (3.55 ms, 20-40 us, 5.64 -> 4.77 ms, 717 ms vs 1558 ms, ~150 us, "took 36 ms"); speed-ups
# as results (1.2x, 0.83x / 0.44x, 4x faster); where it was measured ("2-core", "measured in Chromium").
# Not flagged: design figures and contracts: 0.25 s, 1e-4 m, 64 bytes, a multiplier in a rule ("1.5x
# the last key step", "grows to 1.5x"), a budget ("fits 16.7 ms", "a 16.7 ms budget"), a whole
# number of ms in a contract ("every 100 ms"), and "ms" without a figure (a stats field's unit).
#
# Comments read: C, C++ and GLSL (/* */ and //, strings skipped), JavaScript (the same, strings,
# template literals and regular expressions skipped), HTML (<!-- --> and the comments of inline
# scripts and styles). Scope: include/ src/ tools/ demo/ examples/ and web/*.mjs, *.js, *.html.
#
# Usage: scripts/check-comments.sh [--report] [PATH...]
#   PATH...    folders or files to enforce (default: the whole scope, as make format-check runs it)
#   --report   list every offender in the whole scope, a count per file and per folder, and exit 0
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os, re, subprocess, sys

SCOPE = ["include", "src", "tools", "demo", "examples", "web"]
C_LIKE = (".c", ".h", ".cpp", ".hpp", ".glsl", ".vert", ".frag", ".comp")
JS = (".mjs", ".js")
HTML = (".html",)

T = r"(?:ms|us|µs|ns)"  # the timing units; seconds are left alone (contracts: 0.25 s, a 6.35 s interval)
RULES = [
    ("session", re.compile(r"\bsessions?\s+\d+", re.I)),
    ("commit", re.compile(r"(?<![0-9A-Za-z_#.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}(?![0-9A-Za-z_])")),
    ("commit", re.compile(r"\bcommits?\s+[0-9a-f]{7,40}\b", re.I)),
    ("date", re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")),
    # a timing with decimals, a range, a before -> after, a comparison, or after a verb of measuring
    ("timing", re.compile(r"\d+\.\d+\s*(?:-\s*\d+(?:\.\d+)?\s*)?" + T + r"\b")),
    ("timing", re.compile(r"\b\d[\d,]*\s*-\s*\d[\d,]*\s*" + T + r"\b")),
    ("timing", re.compile(r"\d[\d.,]*\s*(?:" + T + r")?\s*->\s*\d[\d.,]*\s*" + T + r"\b")),
    ("timing", re.compile(r"\b\d[\d.,]*\s*" + T + r"\s+(?:vs\.?|versus|against)\s", re.I)),
    ("timing", re.compile(r"\b(?:vs\.?|versus|against)\s+\d[\d.,]*\s*" + T + r"\b", re.I)),
    ("timing", re.compile(r"~\s*\d[\d.,]*\s*" + T + r"\b")),
    ("timing", re.compile(r"\b(?:took|takes|cost|costs|costing|read|reads|measured|ran|spent|median|mean|p90)\s+"
                          r"(?:about\s+|~|frame\s+|of\s+)?\d[\d.,]*\s*" + T + r"\b", re.I)),
    # a speed-up or ratio as a result (1.2x, 0.83x / 0.44x, 4x faster); a multiplier in a rule
    # ("1.5x the last key step", "grows to 1.5x") is design
    ("speed-up", re.compile(r"(?<!\bto )(?<!\bby )(?<!\bmost )(?<!\bleast )(?<!\bthan )\b\d+\.\d+x\b"
                            r"(?!\s+(?:the|a|an|its|their|that|this|as|of)\b)")),
    ("speed-up", re.compile(r"\b\d+(?:\.\d+)?\s?x\s+(?:faster|slower|quicker|cheaper|dearer|as fast|as slow)\b", re.I)),
    # where and how it was measured
    ("machine", re.compile(r"\b\d+-core\b")),
    ("machine", re.compile(r"\bmeasured\s+(?:in|on)\s+(?:Chromium|llvmpipe|SwiftShader|the browser|this|our|a)\b", re.I)),
]
# Design figures that read like timings: a frame budget ("fits 16.7 ms", "under 33.3 ms").
BUDGET = re.compile(r"(?:fits|within|under|budget(?: of)?|at most|up to|every|timeout(?: of)?|limit(?: of)?)\s+(?:a\s+|the\s+)?$", re.I)
BUDGET_AFTER = re.compile(r"\s*(?:frame\s+)?(?:budget|deadline|timeout|limit)\b", re.I)


def c_comments(text, js=False):
    """Yields (line, comment text) for each comment line; strings and, in JS, regex literals are skipped."""
    i, n, line = 0, len(text), 1
    prev = ""  # last significant code character, for telling a JS regex from a division
    while i < n:
        ch = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if ch == "\n":
            line += 1
            i += 1
            continue
        if ch == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield line, text[i + 2:j]
            i = j
            continue
        if ch == "/" and nxt == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                yield line + k, part
            line += text.count("\n", i, j)
            i = j + 2
            continue
        if ch in "\"'" or (js and ch == "`"):
            j = i + 1
            while j < n and text[j] != ch:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and ch != "`":
                    break
                j += 1
            line += text.count("\n", i, j)
            i = j + 1
            prev = "a"
            continue
        if js and ch == "/" and (prev == "" or prev in "(,=:[!&|?{};+-*%<>~^"):
            j, klass = i + 1, False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 1
                elif text[j] == "[":
                    klass = True
                elif text[j] == "]":
                    klass = False
                elif text[j] == "/" and not klass:
                    break
                j += 1
            i = j + 1
            prev = "a"
            continue
        if not ch.isspace():
            prev = ch
        i += 1


def html_comments(text):
    for m in re.finditer(r"<!--(.*?)-->", text, re.S):
        line = text.count("\n", 0, m.start()) + 1
        for k, part in enumerate(m.group(1).split("\n")):
            yield line + k, part
    for m in re.finditer(r"<(script|style)\b[^>]*>(.*?)</\1>", text, re.S | re.I):
        base = text.count("\n", 0, m.start(2))
        for line, part in c_comments(m.group(2), js=m.group(1).lower() == "script"):
            yield base + line, part


def comments(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if path.endswith(C_LIKE):
        return c_comments(text)
    if path.endswith(JS):
        return c_comments(text, js=True)
    if path.endswith(HTML):
        return html_comments(text)
    return iter(())


def in_scope(path):
    top = path.split("/", 1)[0]
    if top == "web":
        return path.count("/") == 1 and path.endswith(JS + HTML)
    return top in SCOPE and path.endswith(C_LIKE)


def offenders(paths):
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--"] + paths,
                           check=True, capture_output=True, text=True).stdout.split()
    for path in sorted(f for f in files if in_scope(f) and os.path.isfile(f)):
        prev_line, prev_text = -1, ""
        for line, text in comments(path):
            hits = matches(text)
            # a phrase broken across two comment lines ("until session" / "14 ...") counts for the first
            if line == prev_line + 1:
                joined = prev_text.rstrip() + " " + text.strip().lstrip("*").strip()
                spanning = matches(joined, spans=len(prev_text.rstrip()))
                if spanning and not matches(prev_text):
                    yield path, prev_line, spanning, prev_text.strip()
            if hits:
                yield path, line, hits, text.strip()
            prev_line, prev_text = line, text


def matches(text, spans=None):
    """The rules that match text; with spans, only matches that cross that offset (a line break)."""
    hits = set()
    for name, rule in RULES:
        for m in rule.finditer(text):
            if spans is not None and not (m.start() < spans < m.end()):
                continue
            if name == "timing" and (BUDGET.search(text[:m.start()]) or BUDGET_AFTER.match(text[m.end():])):
                continue
            hits.add(name)
    return sorted(hits)


def main(argv):
    report = "--report" in argv
    paths = [a.rstrip("/") for a in argv if a != "--report"] or SCOPE
    if report:
        paths = SCOPE
    found = list(offenders(paths))
    for path, line, kinds, text in found:
        print(f"{path}:{line}: [{','.join(kinds)}] {text[:110]}")
    if report:
        per_file, per_dir = {}, {}
        for path, *_ in found:
            per_file[path] = per_file.get(path, 0) + 1
            d = path.split("/", 1)[0] + "/" if path.count("/") == 1 else "/".join(path.split("/")[:2]) + "/"
            per_dir[d] = per_dir.get(d, 0) + 1
        print(f"\ncomments: {len(found)} lines in {len(per_file)} files")
        for d in sorted(per_dir):
            names = sorted(p for p in per_file if p.startswith(d))
            print(f"{d} ({per_dir[d]} lines): " + ", ".join(f"{p[len(d):]} {per_file[p]}" for p in names))
        return 0
    if found:
        print(f"comments: FAILED: {len(found)} comment lines above carry history or measurements "
              "(say why in the code; figures go to docs/performance.md, history to commit messages)")
        return 1
    print("comments: no history or measurements in the comments of " + " ".join(paths))
    return 0


sys.exit(main(sys.argv[1:]))
PY
