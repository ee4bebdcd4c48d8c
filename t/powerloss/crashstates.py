"""Every state a power loss could leave, from a log of t/powerloss/shim.c.

The model (after ALICE, OSDI 2014, and CrashMonkey, OSDI 2018), kept
independent of any one file system:

- What existed under the root before the run is durable.
- A file's bytes and size are durable as of its last fsync or fdatasync
  (sync_file_range makes nothing durable).  Each write issued after it may
  have reached the disk whole, not at all, as zeros (the size was
  persisted, the data not) or as garbage (stale blocks), and may be torn
  at 512-byte sectors or 4096-byte pages: a prefix of it; all of it but
  one sector or page; any subset of its sectors or pages (up to 8 of
  them), the others zeros.  A truncation after the last sync may or may
  not have happened.
- A directory's entries (creations, renames, links, unlinks, mkdirs) are
  durable as of its last fsync; each operation after it may or may not
  have happened, applied in the order issued.  Fsyncing a file does not
  make its name durable.
- sync(2) and syncfs(2) make everything durable.
- Standard output is what the caller was told: a result line counts as
  acknowledged from the moment it was written.

A crash may come after any logged call.  For each crash point every
combination is built when there are few, else a bounded family (each
choice alone against all-written and against none-written), and states
that come out identical are checked once, against the most results that
were acknowledged by any crash point that can leave them.
"""

import hashlib
import itertools
import os

SECTOR = 512
PAGE = 4096
FULL_PRODUCT = 512      # combinations built exhaustively up to this many
ALL_FATES = 4           # pending writes up to which every fate mix is built
ALL_SUBSETS = 5         # pending directory operations, every subset up to
SUBSET_PIECES = 8       # sectors or pages of a write, every subset up to


class Unsupported(Exception):
    """The log holds something the model cannot replay."""


class Inode:
    serial = 0

    def __init__(self, kind, data=b"", entries=None):
        Inode.serial += 1
        self.id = Inode.serial
        self.kind = kind                    # "f" or "d"
        self.data = bytearray(data)         # what a kill would leave
        self.durable = bytes(data)
        self.entries = dict(entries or {})  # name -> Inode (directories)
        self.durable_entries = dict(self.entries)
        self.pending = []                   # operations since the last sync

    def sync(self):
        if self.kind == "f":
            self.durable = bytes(self.data)
        else:
            self.durable_entries = dict(self.entries)
        self.pending = []


def _write_at(buf, off, data):
    if off > len(buf):
        buf.extend(b"\0" * (off - len(buf)))
    buf[off:off + len(data)] = data


def _resize(buf, n):
    if n < len(buf):
        del buf[n:]
    else:
        buf.extend(b"\0" * (n - len(buf)))


def _pieces(off, data, unit):
    """DATA written at OFF, split at file offsets that are multiples of UNIT."""
    out, pos = [], 0
    while pos < len(data):
        end = min(len(data), ((off + pos) // unit + 1) * unit - off)
        out.append((off + pos, data[pos:end]))
        pos = end
    return out


def _materialize(durable, ops):
    """Bytes of a file: DURABLE then OPS, each (fate, op); fates A, X, Z."""
    buf = bytearray(durable)
    for fate, op in ops:
        if fate == "X":
            continue
        if op[0] == "t":
            _resize(buf, op[1])
        elif fate == "A":
            _write_at(buf, op[1], op[2])
        elif fate == "Z":
            _write_at(buf, op[1], b"\0" * len(op[2]))
        else:
            _write_at(buf, op[1], _garbage(op[1], len(op[2])))
    return bytes(buf)


def _garbage(off, n):
    """Stale bytes of some other file: the same for the same place."""
    out = bytearray()
    block = off // 32
    while len(out) < n + 32:
        out.extend(hashlib.sha256(b"%d" % block).digest())
        block += 1
    return bytes(out[off % 32:off % 32 + n])


def file_variants(durable, pending):
    """Every content the file may hold, as {bytes: description}."""
    out = {}

    def add(desc, ops):
        out.setdefault(_materialize(durable, ops), desc)

    m = len(pending)
    fates = [("A", "X") if op[0] == "t" else ("A", "X", "Z")
             for op in pending]
    add("all written", [("A", op) for op in pending])
    add("none written", [])
    if m == 0:
        return out
    if m <= ALL_FATES:
        for combo in itertools.product(*fates):
            add("fates " + "".join(combo), list(zip(combo, pending)))
    else:
        for i in range(m + 1):
            add("first %d written" % i,
                [("A" if j < i else "X", op) for j, op in enumerate(pending)])
            add("first %d written, rest zeros" % i,
                [("A" if j < i else "Z" if "Z" in fates[j] else "X", op)
                 for j, op in enumerate(pending)])
    for i in range(m):
        for f in fates[i] + (("G",) if pending[i][0] == "w" else ()):
            add("only write %d %s" % (i, f),
                [(f if j == i else "A", op) for j, op in enumerate(pending)])
            add("write %d alone %s" % (i, f),
                [(f if j == i else "X", op) for j, op in enumerate(pending)])
    # Torn writes: a prefix of sectors; all but one sector; all but a page.
    names = {"X": "lost", "Z": "zeros", "G": "garbage"}
    for i, op in enumerate(pending):
        if op[0] != "w":
            continue
        before = [("A", p) for p in pending[:i]]
        sectors = _pieces(op[1], op[2], SECTOR)
        cuts = range(1, len(sectors))
        if len(sectors) > 16:
            cuts = sorted(set(list(range(1, 9)) +
                              list(range(8, len(sectors), 8)) +
                              [len(sectors) - 1]))
        for j in cuts:
            for rest in ("X", "Z", "G"):
                ops = before + [("A", ("w", o, d)) for o, d in sectors[:j]]
                ops += [(rest, ("w", o, d)) for o, d in sectors[j:]]
                ops += [(rest if p[0] == "w" else "X", p)
                        for p in pending[i + 1:]]
                add("write %d torn after sector %d, rest %s" % (
                    i, j, names[rest]), ops)
        for unit, what in ((SECTOR, "sector"), (PAGE, "page")):
            pieces = _pieces(op[1], op[2], unit)
            if len(pieces) < 2 or len(pieces) > 64:
                continue
            for j in range(len(pieces)):
                ops = before + [("Z" if k == j else "A", ("w", o, d))
                                for k, (o, d) in enumerate(pieces)]
                add("write %d with %s %d zeros" % (i, what, j), ops)
            if len(pieces) > SUBSET_PIECES:
                continue
            # pieces reach the disk in any order: every subset, the rest
            # zeros (the size persisted)
            for mask in range(1, (1 << len(pieces)) - 1):
                ops = before + [("A" if mask >> k & 1 else "Z", ("w", o, d))
                                for k, (o, d) in enumerate(pieces)]
                add("write %d with %ss %s written" % (
                    i, what, format(mask, "0%db" % len(pieces))[::-1]), ops)
    return out


def dir_variants(durable, pending):
    """Every set of entries the directory may hold: {frozen: description}."""
    out = {}

    def add(desc, chosen):
        entries = dict(durable)
        for op in chosen:
            if op[0] == "add":
                entries[op[1]] = op[2]
            elif op[0] == "del":
                entries.pop(op[1], None)
            elif op[0] == "move":       # within this directory, atomic
                if entries.get(op[1]) is not op[3]:
                    continue            # its source never became durable
                del entries[op[1]]
                entries[op[2]] = op[3]
        key = tuple(sorted((n, i.id) for n, i in entries.items()))
        out.setdefault(key, (desc, entries))

    m = len(pending)
    add("all done", pending)
    add("none done", [])
    if m <= ALL_SUBSETS:
        for mask in range(1 << m):
            add("done %s" % format(mask, "0%db" % m)[::-1],
                [op for k, op in enumerate(pending) if mask >> k & 1])
    else:
        for i in range(m + 1):
            add("first %d done" % i, pending[:i])
        for i in range(m):
            add("all but %d done" % i, pending[:i] + pending[i + 1:])
    return list(out.values())


class Model:
    """The files under ROOT, replaying the log one call at a time."""

    def __init__(self, root, drop_syncs=False):
        self.root = os.path.abspath(root)
        self.drop_syncs = drop_syncs
        self.byino = {}
        self.top = self._scan(self.root)
        self.out = bytearray()

    def _scan(self, path):
        st = os.lstat(path)
        if os.path.isdir(path) and not os.path.islink(path):
            entries = {n: self._scan(os.path.join(path, n))
                       for n in sorted(os.listdir(path))}
            node = Inode("d", entries=entries)
        elif os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                node = Inode("f", f.read())
        else:
            raise Unsupported("%s: neither a file nor a folder" % path)
        self.byino[st.st_ino] = node
        return node

    def _parent(self, path):
        rel = os.path.relpath(path, self.root)
        if rel.startswith(".."):
            raise Unsupported("%s: outside the root" % path)
        parts = rel.split("/")
        node = self.top
        for p in parts[:-1]:
            node = node.entries.get(p)
            if node is None or node.kind != "d":
                raise Unsupported("%s: no such folder in the model" % path)
        return node, parts[-1]

    def _inside(self, path):
        return path == self.root or path.startswith(self.root + "/")

    def apply(self, fields):
        """One log line, split on tabs."""
        op, args = fields[0], fields[2:]
        if op == "open":
            fd, ino, kind, created, trunc, path = args
            ino = int(ino)
            if created == "1":
                d, name = self._parent(path)
                node = Inode(kind)
                self.byino[ino] = node
                d.entries[name] = node
                d.pending.append(("add", name, node))
            elif ino not in self.byino:
                raise Unsupported("%s: opened, but not known" % path)
            if trunc == "1":
                self._data(ino, ("t", 0))
        elif op == "write":
            self._data(int(args[0]), ("w", int(args[1]),
                                      bytes.fromhex(args[2])))
        elif op == "trunc":
            self._data(int(args[0]), ("t", int(args[1])))
        elif op in ("fsync", "fdatasync"):
            node = self.byino.get(int(args[0]))
            if node is not None and not self.drop_syncs:
                node.sync()
        elif op == "syncall":
            if not self.drop_syncs:
                for node in set(self.byino.values()):
                    node.sync()
        elif op == "mkdir":
            ino, path = int(args[0]), args[1]
            d, name = self._parent(path)
            node = Inode("d")
            self.byino[ino] = node
            d.entries[name] = node
            d.pending.append(("add", name, node))
        elif op in ("unlink", "rmdir"):
            d, name = self._parent(args[0])
            d.entries.pop(name, None)
            d.pending.append(("del", name))
        elif op in ("rename", "link"):
            src, dst = args
            if not self._inside(src) or not self._inside(dst):
                raise Unsupported("%s %s %s: across the root" % (op, src, dst))
            sd, sname = self._parent(src)
            dd, dname = self._parent(dst)
            node = sd.entries.get(sname)
            if node is None:
                raise Unsupported("%s: not in the model" % src)
            if op == "link":
                dd.entries[dname] = node
                dd.pending.append(("add", dname, node))
            elif sd is dd:
                del sd.entries[sname]
                sd.entries[dname] = node
                sd.pending.append(("move", sname, dname, node))
            else:
                del sd.entries[sname]
                sd.pending.append(("del", sname))
                dd.entries[dname] = node
                dd.pending.append(("add", dname, node))
        elif op == "out":
            self.out.extend(bytes.fromhex(args[0]) if args else b"")
        elif op == "stdio":
            raise Unsupported("%s: written through stdio" % args[0])
        elif op in ("close", "dup", "range", "try-rename"):
            pass
        else:
            raise Unsupported("unknown log line %r" % op)

    def _data(self, ino, opn):
        node = self.byino.get(ino)
        if node is None:
            raise Unsupported("inode %d written, but not known" % ino)
        if opn[0] == "t":
            _resize(node.data, opn[1])
        else:
            _write_at(node.data, opn[1], opn[2])
        node.pending.append(opn)

    def acknowledged(self):
        """The complete lines written to standard output so far."""
        text = bytes(self.out)
        return text[:text.rfind(b"\n") + 1].decode("utf-8", "replace")

    def states(self):
        """Every state a power loss now could leave: (tree, description).

        A tree is {relative path: (first path, bytes)} for files (names of
        one file share the first path), and None for folders.
        """
        dirs = []

        def reach(node, seen):
            if node.id in seen:
                return
            seen.add(node.id)
            cands = [node.durable_entries] + [
                {op[1]: op[2]} for op in node.pending if op[0] == "add"] + [
                {op[2]: op[3]} for op in node.pending if op[0] == "move"]
            for c in cands:
                for child in c.values():
                    if child.kind == "d":
                        reach(child, seen)
            dirs.append(node)

        reach(self.top, set())
        dvars = {d.id: dir_variants(d.durable_entries, d.pending)
                 for d in dirs}
        fvars = {}
        for combo in _choices([dvars[d.id] for d in dirs]):
            chosen = {d.id: v for d, v in zip(dirs, combo)}
            files = []
            tree_dirs = {}
            self._walk(self.top, "", chosen, tree_dirs, files)
            for f in files:
                if f[1].id not in fvars:
                    fvars[f[1].id] = list(file_variants(
                        f[1].durable, f[1].pending).items())
            # one choice per file, however many names it has (links)
            nodes = []
            for path, n in files:
                if n not in nodes:
                    nodes.append(n)
            first = {}
            for path, n in files:
                first.setdefault(n.id, path)
            for fc in _choices([fvars[n.id] for n in nodes]):
                tree = dict(tree_dirs)
                desc = [v[0] for v in combo if v[0] != "all done"]
                got = {n.id: v for n, v in zip(nodes, fc)}
                for path, n in files:
                    tree[path] = (first[n.id], got[n.id][0])
                for n in nodes:
                    if got[n.id][1] != "all written":
                        desc.append("%s: %s" % (first[n.id], got[n.id][1]))
                yield tree, "; ".join(desc) or "as written"

    def _walk(self, node, prefix, chosen, tree_dirs, files):
        entries = chosen[node.id][1] if node.id in chosen else node.entries
        for name in sorted(entries):
            child = entries[name]
            path = prefix + name
            if child.kind == "d":
                tree_dirs[path] = None
                self._walk(child, path + "/", chosen, tree_dirs, files)
            else:
                files.append((path, child))


def _choices(lists):
    """Combinations, one item from each list: all when few, else each item
    alone against the first (all written) and against the second."""
    lists = [l for l in lists]
    total = 1
    for l in lists:
        total *= len(l)
    if total <= FULL_PRODUCT:
        yield from itertools.product(*lists)
        return
    for base in (0, 1):
        pick = [min(base, len(l) - 1) for l in lists]
        yield tuple(l[p] for l, p in zip(lists, pick))
        for i, l in enumerate(lists):
            for j in range(len(l)):
                p = list(pick)
                p[i] = j
                yield tuple(l[k] for l, k in zip(lists, p))


def tree_key(tree):
    h = hashlib.sha256()
    for path in sorted(tree):
        h.update(path.encode() + b"\0")
        if tree[path] is None:
            h.update(b"D")
        else:
            h.update(b"F" + tree[path][0].encode() + b"\0" +
                     hashlib.sha256(tree[path][1]).digest())
    return h.hexdigest()


def enumerate_states(model, lines):
    """Feeds LINES (the log) to MODEL; returns (states, crash points):
    states is {key: [tree, acknowledged, crash point, description]}."""
    states = {}
    points = 0

    def crash(point):
        ack = model.acknowledged()
        for tree, desc in model.states():
            key = tree_key(tree)
            cur = states.get(key)
            if cur is None:
                states[key] = [tree, ack, point, desc]
            elif len(ack) > len(cur[1]):
                cur[1], cur[2], cur[3] = ack, point, desc

    crash(0)
    points += 1
    for n, line in enumerate(lines, 1):
        fields = line.rstrip("\n").split("\t")
        model.apply(fields)
        if fields[0] in ("close", "dup", "range", "try-rename") or (
                fields[0] == "open" and fields[5] == "0"
                and fields[6] == "0"):
            continue            # nothing a crash could see changed
        crash(n)
        points += 1
    return states, points


def build(tree, where):
    """Makes the files of TREE under WHERE (which must not exist)."""
    os.mkdir(where, 0o700)
    for path in sorted(tree):
        full = os.path.join(where, path)
        if tree[path] is None:
            os.mkdir(full, 0o700)
    for path in sorted(tree):
        full = os.path.join(where, path)
        if tree[path] is not None and tree[path][0] == path:
            fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(tree[path][1])
    for path in sorted(tree):
        if tree[path] is not None and tree[path][0] != path:
            os.link(os.path.join(where, tree[path][0]),
                    os.path.join(where, path))
