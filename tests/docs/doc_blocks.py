"""The `$ command` examples of a Markdown page and their shown output.

A fenced block holds examples as a shell session shows them: a line
`$ COMMAND` (continued over the next lines while a quote is open, a line
ends with a backslash, or a here-document is unfinished), then the lines the
command printed, up to the next `$ ` line or the end of the block. Used by
check_commands.py.
"""
import re
import shlex

ELLIPSIS = "\u2026"

# Numbers that are timings, and so differ from run to run (docs/cli.md says
# which): masked in the shown and the printed output alike.
TIMINGS = [
    (re.compile(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)? ms\b"), "<time> ms"),
    (re.compile(r'("solve_seconds": )[-+0-9.e]+'), r"\1<time>"),
]


class Example:
    """One `$` command: where it is, its text, the lines it should print."""

    def __init__(self, path, line, command, expected, block):
        self.path = path          # the page, as given
        self.line = line          # 1-based line of its `$`
        self.command = command    # continuation lines joined with newlines
        self.expected = expected  # [(line number, text)]
        self.block = block        # 1-based line of the block's opening fence

    def where(self):
        return "%s:%d" % (self.path, self.line)


def fenced_blocks(lines):
    """Yields (line number of the fence, info string, body lines)."""
    i = 0
    while i < len(lines):
        m = re.match(r"^( *)(`{3,}|~{3,})(.*)$", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append((i + 1, lines[i][indent:] if lines[i][:indent].isspace() else lines[i]))
            i += 1
        i += 1
        yield start, info, body


def _complete(command):
    """Whether a shell command is whole: no open quote, no trailing backslash,
    no unfinished here-document."""
    if command.endswith("\\"):
        return False
    heredoc = re.search(r"<<-?\s*(['\"]?)(\w+)\1", command)
    if heredoc:
        return re.search(r"\n%s$" % heredoc.group(2), command) is not None
    try:
        shlex.split(command, comments=True)
    except ValueError:  # "No closing quotation"
        return False
    return True


def examples(path, text):
    """The `$` examples of a page, in order."""
    found = []
    for fence_line, _, body in fenced_blocks(text.split("\n")):
        k = 0
        while k < len(body):
            number, line = body[k]
            if not line.startswith("$ "):
                k += 1
                continue
            command = line[2:]
            k += 1
            while not _complete(command) and k < len(body):
                command += "\n" + body[k][1]
                k += 1
            expected = []
            while k < len(body) and not body[k][1].startswith("$ "):
                expected.append(body[k])
                k += 1
            found.append(Example(path, number, command, expected, fence_line))
    return found


def bare_commands(path, text, words):
    """Lines of text blocks that look like a command but lack the `$ `: their
    output, if shown, would go unchecked. Synopses (`[--option]`, `FILE`,
    `a|b`) and sh blocks (commands shown without output) are fine."""
    found = []
    for _, info, body in fenced_blocks(text.split("\n")):
        if info not in ("", "text", "json", "console"):
            continue
        for number, line in body:
            first = line.split(" ", 1)[0]
            if first in words and not re.search(r"\[|\||\bFILE\b", line):
                found.append("%s:%d: %s" % (path, number, line))
    return found


def _normalise(lines):
    out = []
    for text in lines:
        text = text.rstrip()
        for pattern, replacement in TIMINGS:
            text = pattern.sub(replacement, text)
        out.append(text)
    while out and not out[-1]:
        out.pop()
    return out


def _same(shown, printed):
    """A shown line ending in ` …` is the start of a longer printed one."""
    if printed is None:
        return False
    if shown.endswith(" " + ELLIPSIS):
        return printed.startswith(shown[:-1])
    return shown == printed


def _matches(segment, got, start):
    return start >= 0 and start + len(segment) <= len(got) and all(
        _same(text, got[start + k]) for k, (_, text) in enumerate(segment))


def compare(expected, printed):
    """None when the printed lines match the shown ones, else a message naming
    the first shown line that does not match. A shown line `…` stands for any
    number of printed lines; a line ending in ` …`, for any line it begins."""
    numbers = [n for n, _ in expected]
    want = _normalise([t for _, t in expected])
    numbers = numbers[:len(want)]
    got = _normalise(printed)
    # Segments of shown lines between `…` lines; each is found in order, the
    # first at the start of the output, the last at its end.
    segments, current = [], []
    for n, text in zip(numbers, want):
        if text.strip() == ELLIPSIS:
            segments.append(current)
            current = []
        else:
            current.append((n, text))
    segments.append(current)
    pos = 0
    for index, segment in enumerate(segments):
        first, last = index == 0, index == len(segments) - 1
        if last and not first:
            start = len(got) - len(segment)
            if start < pos:
                return _mismatch(segment, got, max(pos, 0), "too few printed lines before it")
        elif first:
            start = 0
        else:
            start = _find(segment, got, pos)
            if start is None:
                return _mismatch(segment, got, pos, "not printed (after printed line %d)" % pos)
        if not _matches(segment, got, start):
            return _mismatch(segment, got, start, None)
        pos = start + len(segment)
    if len(segments) == 1 and pos != len(got):
        return "printed %d more line(s) than shown, from printed line %d: %r" % (
            len(got) - pos, pos + 1, got[pos])
    return None


def _find(segment, got, pos):
    for start in range(pos, len(got) - len(segment) + 1):
        if _matches(segment, got, start):
            return start
    return None


def _mismatch(segment, got, start, note):
    for offset, (n, text) in enumerate(segment):
        printed = got[start + offset] if 0 <= start + offset < len(got) else None
        if not _same(text, printed) or note:
            message = "line %d: shown   %r\n         printed %r" % (n, text, printed)
            return message + ("\n         (%s)" % note if note else "")
    return "a shown line is missing"
