"""What every memcached-protocol server of this project answers alike through pymemcache
(test_kvcache.py and test_kv.py): the storage, arithmetic and retrieval commands on a
server preloaded with key(i) -> value(i), after the test has set "a" to b"1"."""


def check_storage_commands(c, key, value):
    assert c.get("a") == b"1"
    got, cas = c.gets("a")
    assert got == b"1" and cas
    assert c.add("a", b"x") is False
    assert c.add("b", b"y") is True
    assert c.replace("b", b"yy") is True
    assert c.replace("nope", b"z") is False
    assert c.append("b", b"z") is True
    assert c.prepend("b", b"x") is True
    assert c.get("b") == b"xyyz"
    assert c.append("nope", b"z") is False
    _, cas_b = c.gets("b")
    assert c.cas("b", b"new", cas_b) is True
    assert c.cas("b", b"newer", cas_b) is False   # EXISTS: the unique changed with the store
    assert c.cas("nope", b"v", 1) is None          # NOT_FOUND
    assert c.get("b") == b"new"
    assert c.delete("b") is True
    assert c.delete("b") is False
    assert c.set("n", b"10") is True
    assert c.incr("n", 5) == 15
    assert c.decr("n", 20) == 0                    # decr stops at 0
    assert c.incr("nope", 1) is None
    assert c.touch("n", 100) is True
    assert c.touch("nope", 100) is False
    assert c.get_many(["a", "n", "nope", key(7)]) == {"a": b"1", "n": b"0", key(7): value(7)}


def check_noreply(c):
    """noreply: nothing comes back, so the next command's answer is its own (after
    check_storage_commands: "n" holds b"0")."""
    assert c.set("q", b"quiet", noreply=True) is True
    assert c.add("q", b"loud", noreply=True) is True
    assert c.append("q", b"!", noreply=True) is True
    assert c.incr("n", 7, noreply=True) is None
    assert c.touch("q", 100, noreply=True) is True
    assert c.get("q") == b"quiet!"
    assert c.get("n") == b"7"
    assert c.delete("q", noreply=True) is True
