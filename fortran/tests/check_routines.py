#!/usr/bin/env python3
"""Checks docs/fortran.md's routine reference against module isocost.

usage: check_routines.py fortran/isocost.F90 docs/fortran.md

The public procedures of isocost.F90 (its #include files expanded) and their
dummy arguments -- name, order, type, intent, optional, shape, attributes,
and a function's result -- must equal the entries of the doc's "## Routines"
section, one entry per routine. A routine under #ifdef ISOCOST_HAVE_MPI or
ISOCOST_HAVE_FIT must sit under a heading saying "(with MPI)" or
"(with the fitters)", and no other. An entry is, inside a ```fortran block:

  call isocost_name(a, b, [c], [status])     or   r = isocost_name(a)
    ! one line of what it does
    <a Fortran declaration of each argument (and r)>

where [x] marks an optional argument. A `status` left undeclared stands for
`integer, intent(out), optional :: status`, the convention of every routine.
"""
import os
import re
import sys

CONDITIONS = {'ISOCOST_HAVE_MPI': '(with MPI)', 'ISOCOST_HAVE_FIT': '(with the fitters)'}
DECLARATION = re.compile(r'(integer|real|logical|character|type|class|complex)\b\s*'
                         r'(\((?:[^()]|\([^()]*\))*\))?\s*(,.*?)?::(.*)$', re.I)
HEADER = re.compile(r'(?:[\w(),=*: ]+\s)?(subroutine|function)\s+(\w+)\s*\(([^)]*)\)'
                    r'\s*(?:result\s*\(\s*(\w+)\s*\))?\s*$', re.I)
DEFAULT_STATUS = ('integer', 'out', True, '', ())


def strip_comment(line):
    quote = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in '"\'':
            quote = ch
        elif ch == '!':
            return line[:i]
    return line


def split_top(text):
    """Splits at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {'(': 1, ')': -1}.get(ch, 0)
        if ch == ',' and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def statements(path, conditions=()):
    """(conditions, statement) of a Fortran file: #include expanded, comments
    dropped, continuation lines joined."""
    out, stack, pending = [], list(conditions), ''
    with open(path, encoding='utf-8') as f:
        for raw in f:
            s = raw.strip()
            if s.startswith('#'):
                words = s.split()
                if words[0] == '#include':
                    inc = os.path.join(os.path.dirname(path), words[1].strip('"'))
                    out += statements(inc, stack)
                elif words[0] == '#ifdef':
                    stack.append(words[1])
                elif words[0] == '#endif':
                    stack.pop()
                else:
                    sys.exit(f'{path}: unsupported directive {s}')
                continue
            s = strip_comment(s).strip()
            if pending:
                s = s.lstrip('&').strip()
            if s.endswith('&'):
                pending += s[:-1] + ' '
                continue
            s, pending = (pending + s).strip(), ''
            if s:
                out.append((tuple(stack), s))
    return out


def declare(statement, table):
    """Adds the entities of a declaration to table: name -> (type, intent,
    optional, shape, other attributes). False when not a declaration."""
    m = DECLARATION.match(statement)
    if not m:
        return False
    kind = (m[1] + (m[2] or '')).lower().replace(' ', '')
    intent, optional, shape, other = None, False, '', []
    for attr in split_top((m[3] or '').lstrip(',')):
        a = attr.lower().replace(' ', '')
        if a.startswith('intent('):
            intent = a[7:-1]
        elif a == 'optional':
            optional = True
        elif a.startswith('dimension('):
            shape = a[9:]
        else:
            other.append(a)
    for entity in split_top(m[4]):
        e = re.match(r'(\w+)\s*(\([^=]*\))?', entity)
        table[e[1]] = (kind, intent, optional, (e[2] or shape).replace(' ', ''),
                       tuple(sorted(other)))
    return True


def source_routines(path):
    """name -> (conditions, signature) of module isocost's public procedures: the
    generic interfaces (each over one specific) and the module procedures.
    Other public names (constants, types, and what isocost_c exports) are not
    routines of this module."""
    public, generics, procedures = set(), {}, {}
    generic, current, depth, internal = None, None, 0, False
    for conds, s in statements(path):
        low = s.lower()
        if depth == 0 and re.match(r'public\s*::', low):
            public.update(n.strip() for n in s.split('::', 1)[1].split(','))
        elif depth == 0 and re.match(r'interface\s+\w+$', low):
            generic = s.split()[1]
        elif generic and low.startswith('module procedure'):
            generics[generic] = generics.get(generic, []) + split_top(s[16:])
        elif re.match(r'end\s*interface', low):
            generic = None
        elif HEADER.match(s):
            m = HEADER.match(s)
            depth += 1
            if depth == 1:
                current = {'kind': m[1].lower(), 'args': split_top(m[3]), 'decls': {},
                           'result': m[4] or (m[2] if m[1].lower() == 'function' else None),
                           'conditions': conds}
                procedures[m[2]] = current
                internal = False
        elif re.match(r'end\s*(subroutine|function)\b', low):
            depth -= 1
        elif depth == 1 and low == 'contains':
            internal = True
        elif depth == 1 and not internal:
            declare(s, current['decls'])
    routines = {}
    for name in sorted(public):
        specifics = generics.get(name, [name] if name in procedures else [])
        if len(specifics) > 1:
            sys.exit(f'{path}: {name} is a generic of {len(specifics)} procedures; '
                     'check_routines.py documents one')
        if specifics:
            p = procedures[specifics[0]]
            routines[name] = (set(p['conditions']), signature(p))
    return routines


def signature(p):
    """The comparable form: kind, ((name, declaration), ...), result."""
    args = tuple((a, p['decls'].get(a)) for a in p['args'])
    result = (p['result'], p['decls'].get(p['result'])) if p['kind'] == 'function' else None
    return (p['kind'], args, result)


def doc_routines(path):
    """name -> (heading, signature) of the entries under "## Routines"."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    routines, errors, heading, section, block, entry = {}, [], '', False, False, None

    def close():
        if entry is None:
            return
        if not entry['described']:
            errors.append(f'{path}: {entry["name"]}: no line saying what it does')
        for a in entry['args']:
            if a == 'status' and a not in entry['decls']:
                entry['decls'][a] = DEFAULT_STATUS
            decl = entry['decls'].get(a)
            if decl and decl[2] != (a in entry['optional']):
                errors.append(f'{path}: {entry["name"]}: {a} is ' +
                              ('[optional] but declared without optional'
                               if a in entry['optional'] else 'declared optional but not [marked]'))
        if entry['name'] in routines:
            errors.append(f'{path}: {entry["name"]}: documented twice')
        routines[entry['name']] = (heading, signature(entry))

    for number, line in enumerate(lines, 1):
        if line.startswith('## '):
            section = line.strip() == '## Routines'
        elif section and line.startswith('### '):
            heading = line
        elif section and line.startswith('```'):
            close()
            block, entry = line.strip() == '```fortran', None
        elif section and block and line.strip():
            m = re.match(r'(?:call\s+|(\w+)\s*=\s*)(isocost_\w+)\s*\((.*)\)\s*$', line)
            if m:
                close()
                args = split_top(m[3])
                entry = {'name': m[2], 'kind': 'function' if m[1] else 'subroutine',
                         'args': [a.strip('[]') for a in args], 'result': m[1], 'decls': {},
                         'optional': {a.strip('[]') for a in args if a.startswith('[')},
                         'described': False}
            elif entry is not None and line.startswith('  ') and line.strip().startswith('!'):
                entry['described'] = True
            elif entry is None or not line.startswith('  ') or \
                    not declare(strip_comment(line).strip(), entry['decls']):
                errors.append(f'{path}:{number}: expected an entry, its description or a '
                              f'declaration, got: {line.strip()}')
    return routines, errors


def declaration(name, decl):
    if decl is None:
        return f'{name} (not declared)'
    kind, intent, optional, shape, other = decl
    attrs = ([f'intent({intent})'] if intent else []) + (['optional'] if optional else [])
    return ', '.join([kind] + attrs + list(other)) + f' :: {name}{shape}'


def differences(name, s, d):
    """What differs between the source's and the doc's signature of name."""
    if s[0] != d[0]:
        return [f'{name}: a {s[0]} in the source, a {d[0]} in the doc']
    names = [[a for a, _ in sig[1]] for sig in (s, d)]
    if names[0] != names[1]:
        return [f'{name}: arguments ({", ".join(names[0])}) in the source, '
                f'({", ".join(names[1])}) in the doc']
    pairs = list(zip(s[1], d[1])) + ([(s[2], d[2])] if s[2] else [])
    return [f'{name}: {declaration(*a)} in the source, {declaration(*b)} in the doc'
            for a, b in pairs if a != b]


def main():
    source_path, doc_path = sys.argv[1:3]
    source = source_routines(source_path)
    doc, errors = doc_routines(doc_path)
    for name in sorted(set(source) | set(doc)):
        if name not in doc:
            errors.append(f'{name}: public in {source_path}, not in {doc_path}\'s Routines')
        elif name not in source:
            errors.append(f'{name}: in {doc_path}\'s Routines, not public in {source_path}')
        else:
            (conds, s), (heading, d) = source[name], doc[name]
            errors += differences(name, s, d)
            for macro, words in CONDITIONS.items():
                if (macro in conds) != (words in heading):
                    errors.append(f'{name}: ' + (f'under #ifdef {macro}: its heading must say '
                                                 if macro in conds else 'its heading must not say ')
                                  + f'"{words}" (it is "{heading}")')
    for e in errors:
        print(e)
    if errors:
        print(f'FAILED: {len(errors)} differences between {doc_path} and {source_path}')
        return 1
    print(f'{doc_path}: the {len(source)} public routines of {source_path} and their arguments')
    return 0


if __name__ == '__main__':
    sys.exit(main())
