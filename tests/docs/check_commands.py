#!/usr/bin/env python3
"""Runs every `$ command` shown in README.md and docs/*.md and compares what it
prints with what the page shows (issue #26: so that they cannot drift).

    python3 tests/docs/check_commands.py --cli build-dev/isocost --root . [--mpiexec mpiexec]
        [--build build-dev]

Each page runs in a scratch directory of its own, its commands in page order
(so files made by one are there for the next), with `isocost` on PATH and a
page's build/fortran/examples/… programs taken from the build (--build);
standard output and error are compared together, after trailing blanks; a
shown line `…` skips any number of printed lines; timings are masked
(doc_blocks.TIMINGS). A command is either checked or on SKIP with its reason.
Exit 0 when every checked command prints what is shown, 1 otherwise.
"""
import argparse
import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_blocks  # noqa: E402

# Commands not run, each with why. Keep it short: a command belongs here only
# when what it prints cannot be the same twice.
SKIP = [
    ("README.md", r"^build/examples/sieve/sieve_demo ",
     "the sieve demo times real work: its table is wall times"),
    ("docs/results.md", r"^mpiexec -n \d+ build/examples/(sieve|heterogeneous|density2d|drift|"
     r"particles|moving_peak|cost_model|balancer)/",
     "the papers' scenarios on real work under mpiexec: wall times in every table, 10 s to minutes each"),
    ("docs/fortran.md", r"^mpiexec -n \d+ build/fortran/examples/sieve_fortran\b(?!.* ops$)",
     "the Fortran sieve timed by CPU (or wall) time, 4 ranks on 2 cores: its times, and so its "
     "fit and cuts, differ every run (its `ops` run is checked)"),
]

# Pages not scanned, and why.
EXCLUDED = {}

# A page whose examples use the files another page's examples made (json.md
# says so in its opening): its scratch directory starts as a copy of that one.
INPUTS_FROM = {"docs/json.md": "docs/cli.md"}

# Files a page describes in prose rather than making in a `$` line, made
# before its first command: docs/cli.md's w.bin (the note after its mpiexec
# example), disc.txt and l4.txt (the note after its exit-2 examples).
PROSE_INPUTS = {
    "docs/cli.md": [
        "python3 -c \"import struct; open('w.bin','wb').write(b'ISOCOSTW'+struct.pack('<Iq',1,12)"
        "+struct.pack('<12d',1,2,5,3,3,5,2,1,2,5,3,3))\"",
        "printf '0 1\\n2 3\\n' > disc.txt; printf '1\\n2\\n3\\n4\\n' > l4.txt",
    ],
}

# Programs of a build the pages run (the Fortran examples, the balancer's
# unknown_speeds): run from --build; a command whose program that build
# lacks is skipped, saying so.
BUILT = re.compile(r"(^|\s)(?:\./)?build(?:-dev)?/((?:fortran/)?examples/[\w.-]+(?:/[\w.-]+)?)")

# Paths the pages give relative to a build or the repository, made to work in
# a scratch directory: the command is `isocost` on PATH, examples/ is the
# repository's, a build's programs are --build's, and refine.py's work
# directory is the scratch directory.
REWRITES = [
    (re.compile(r"(^|\s)(?:\./)?build(?:-dev)?/isocost\b"), r"\1isocost"),
    (re.compile(r"(^|\s)python3 examples/"), r"\1python3 {root}/examples/"),
    (re.compile(r"/tmp/runs\b"), "."),
    (BUILT, r"\1{build}/\2"),
]

# Programs a checked command may run; any other makes the command unchecked
# (an error), unless SKIP lists it.
PROGRAMS = {"isocost", "mpiexec", "printf", "awk", "cat", "head", "tr", "od", "echo", "cd",
            "python3"}
# First words of a line that is a command: one without `$ ` in a text block is
# an error (its output would go unchecked).
COMMAND_WORDS = {"isocost", "mpiexec", "build/isocost", "build-dev/isocost"}


def programs_of(command):
    """The first word of each simple command (after ;, |, &&, ||), quotes kept."""
    if "<<" in command:  # a here-document's body is no command
        command = command.split("\n")[0]
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words, first = [], True
    for token in lexer:
        if first:
            words.append(token)
        first = token in (";", "|", "&&", "||", "&")
    return words


def skip_reason(path, example, args):
    for page, pattern, reason in SKIP:
        if page == path and re.search(pattern, example.command):
            return reason
    if "mpiexec" in programs_of(example.command) and not args.mpiexec:
        return "the command was built without MPI (no --mpiexec)"
    for _, program in BUILT.findall(example.command):
        if not os.path.isfile(os.path.join(args.build, program)):
            return "%s is not built in %s (a build without Fortran, MPI or the fitters?)" % (
                program, args.build)
    if re.match(r"^isocost plot\b", example.command) and not shutil.which("gnuplot"):
        return "no gnuplot on PATH"
    return None


def run(example, cwd, env, args):
    """What the command prints (stdout and stderr together), and the new cwd."""
    command = example.command
    for pattern, replacement in REWRITES:
        command = pattern.sub(replacement.replace("{root}", args.root)
                              .replace("{build}", args.build), command)
    cd = re.match(r"^cd\s+(\S+)$", command)
    if cd:
        return [], os.path.normpath(os.path.join(cwd, cd.group(1)))
    if command.startswith("mpiexec "):
        command = args.mpiexec + command[len("mpiexec"):]
    try:
        result = subprocess.run(["bash", "-c", command], cwd=cwd, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=120)
    except subprocess.TimeoutExpired as e:
        return (e.output or b"").decode("utf-8", "replace").split("\n") + ["(timed out)"], cwd
    return result.stdout.decode("utf-8", "replace").split("\n"), cwd


def files_made(example):
    """The files a command writes by redirection or python3's open(…, 'wb')."""
    return set(re.findall(r">\s*([\w.-]+)", example.command)
               + re.findall(r"open\('([\w.-]+)',\s*'w", example.command))


def make_forward_inputs(example, later, cwd, env):
    """Runs first the later commands of the page that make a file this one
    reads before the page makes it (cli.md plots hot.txt, made further down)."""
    words = set(re.findall(r"[\w.-]+", example.command))
    for maker in later:
        missing = [f for f in files_made(maker) & words if not os.path.exists(os.path.join(cwd, f))]
        if missing:
            subprocess.run(["bash", "-c", maker.command], cwd=cwd, env=env, check=True,
                           stdout=subprocess.DEVNULL)


def check_page(path, scratch, env, args, failures):
    """Runs the page's examples in scratch; returns (checked, of them running
    isocost, skipped)."""
    with open(os.path.join(args.root, path), encoding="utf-8") as f:
        text = f.read()
    for bare in doc_blocks.bare_commands(path, text, COMMAND_WORDS):
        failures.append("%s\n    a command without `$ `, so its output goes unchecked: "
                        "write it as `$ COMMAND` (or in a sh block if no output is shown)" % bare)
    for command in PROSE_INPUTS.get(path, []):
        subprocess.run(["bash", "-c", command], cwd=scratch, env=env, check=True)
    checked = isocost = skipped = 0
    block, cwd = None, scratch
    found = doc_blocks.examples(path, text)
    for index, example in enumerate(found):
        if example.block != block:  # a `cd` lasts to the end of its block
            block, cwd = example.block, scratch
        reason = skip_reason(path, example, args)
        if reason:
            skipped += 1
            print("  skipped %s: %s\n      (%s)" % (example.where(), example.command, reason))
            continue
        unknown = [p for p in programs_of(example.command) if p not in PROGRAMS
                   and not re.match(r"(\./)?build(-dev)?/isocost$", p)]
        if unknown:
            failures.append("%s: `%s` runs %s, which this test does not run: make it "
                            "runnable here or add it to SKIP in %s with the reason"
                            % (example.where(), example.command, ", ".join(unknown),
                               os.path.basename(__file__)))
            continue
        make_forward_inputs(example, found[index + 1:], cwd, env)
        printed, cwd = run(example, cwd, env, args)
        checked += 1
        isocost += re.search(r"(^|[\s/])isocost(\s|$)", example.command) is not None
        problem = doc_blocks.compare(example.expected, printed)
        if problem:
            shown = [t.rstrip() for _, t in example.expected]
            got = [t.rstrip() for t in printed]
            while got and not got[-1]:
                got.pop()
            diff = difflib.unified_diff(shown, got, "shown", "printed", lineterm="", n=1)
            failures.append("%s: `%s` does not print what the page shows:\n    %s\n%s"
                            % (example.where(), example.command, problem,
                               "\n".join("      " + line for line in list(diff)[:40])))
    return checked, isocost, skipped


def pages(root):
    names = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(root, "docs"))
                                   if n.endswith(".md"))
    # A page runs after the page whose files it uses.
    return sorted(names, key=lambda n: n in INPUTS_FROM)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="the isocost binary")
    ap.add_argument("--root", required=True, help="the repository (README.md, docs/)")
    ap.add_argument("--mpiexec", default="", help="mpiexec, for the examples under it")
    ap.add_argument("--build", help="the build directory, for the programs the pages run from "
                    "build/fortran/examples/ (default: the directory of --cli)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    args = ap.parse_args()
    args.root = os.path.abspath(args.root)
    args.build = os.path.abspath(args.build or os.path.dirname(os.path.abspath(args.cli)))
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="isocost-docs-")
    bindir = os.path.join(work, "bin")
    os.mkdir(bindir)
    os.symlink(os.path.abspath(args.cli), os.path.join(bindir, "isocost"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    failures, totals = [], [0, 0, 0]
    try:
        for path in pages(args.root):
            if path in EXCLUDED:
                print("%s: not scanned (%s)" % (path, EXCLUDED[path]))
                continue
            scratch = os.path.join(work, path.replace("/", "_"))
            if path in INPUTS_FROM:
                shutil.copytree(os.path.join(work, INPUTS_FROM[path].replace("/", "_")), scratch)
            else:
                os.mkdir(scratch)
            before = len(failures)
            counts = check_page(path, scratch, env, args, failures)
            totals = [t + c for t, c in zip(totals, counts)]
            print("%s: %d checked (%d run isocost), %d skipped, %d failed"
                  % ((path,) + counts + (len(failures) - before,)))
    finally:
        if args.keep:
            print("scratch directories kept in %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("in all: %d checked (%d run isocost), %d skipped, in %.1f s"
          % tuple(totals + [time.monotonic() - started]))
    for failure in failures:
        print("\nFAIL " + failure)
    if failures:
        print("\n%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
