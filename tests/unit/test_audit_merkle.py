"""RFC 6962 Merkle trees: the published test vectors, the RFC's recursive definitions, and tampering always caught."""

from __future__ import annotations

import hashlib

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.merkle import (
    EMPTY_ROOT,
    CompactRange,
    build,
    leaf_hash,
    node_hash,
    root,
    verify_consistency,
    verify_inclusion,
)

# The 8-leaf reference tree and its proofs as the Certificate Transparency implementations test against them:
# transparency-dev/merkle, proof/verify_test.go (`leaves`, `roots`, `inclusionProofs`, `consistencyProofs`; the same
# vectors as google/certificate-transparency-go's merkletree tests and the C++ CT log's merkle_tree_test.cc).
LEAVES = [bytes.fromhex(h) for h in ("", "00", "10", "2021", "3031", "40414243", "5051525354555657")] + [
    bytes.fromhex("606162636465666768696a6b6c6d6e6f")
]
ROOTS = [  # ROOTS[n - 1] is the root of the first n leaves
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (leaf index, tree size, audit path); verify_test.go numbers leaves from 1, these from 0.
INCLUSION_PROOFS = [
    (0, 1, []),
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]
# (old size, new size, consistency proof)
CONSISTENCY_PROOFS = [
    (1, 1, []),
    (
        1,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        6,
        8,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (
        2,
        5,
        [
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
    (
        6,
        7,
        [
            "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
]


def hexes(hashes: list[bytes]) -> list[str]:
    return [h.hex() for h in hashes]


def unhex(hashes: list[str]) -> list[bytes]:
    return [bytes.fromhex(h) for h in hashes]


# The RFC 9162 section 2.1 definitions transcribed as written (recursive, slow, obviously right), to check the
# iterative code against for every size rather than trusting a handful of vectors.
def rfc_mth(d: list[bytes]) -> bytes:
    n = len(d)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + d[0]).digest()
    k = rfc_k(n)
    return hashlib.sha256(b"\x01" + rfc_mth(d[:k]) + rfc_mth(d[k:])).digest()


def rfc_k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def rfc_path(m: int, d: list[bytes]) -> list[bytes]:
    n = len(d)
    if n == 1:
        return []
    k = rfc_k(n)
    if m < k:
        return [*rfc_path(m, d[:k]), rfc_mth(d[k:])]
    return [*rfc_path(m - k, d[k:]), rfc_mth(d[:k])]


def rfc_subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    n = len(d)
    if m == n:
        return [] if b else [rfc_mth(d)]
    k = rfc_k(n)
    if m <= k:
        return [*rfc_subproof(m, d[:k], b), rfc_mth(d[k:])]
    return [*rfc_subproof(m - k, d[k:], False), rfc_mth(d[:k])]


DATA = [hashlib.sha256(str(i).encode()).digest() for i in range(72)]  # distinct 32-byte leaves, like record hashes
TREE = build(DATA)


def flip(data: bytes, bit: int) -> bytes:
    bit %= 8 * len(data)
    return data[: bit // 8] + bytes([data[bit // 8] ^ (1 << (bit % 8))]) + data[bit // 8 + 1 :]


def test_the_hashes_are_the_rfc_6962_leaf_node_and_empty_tree_hashes() -> None:
    # transparency-dev/merkle rfc6962/rfc6962_test.go, each checkable with `xxd -r -p | sha256sum`
    assert EMPTY_ROOT.hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert leaf_hash(b"").hex() == "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
    assert leaf_hash(b"L123456").hex() == "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56"
    assert node_hash(b"N123", b"N456").hex() == "aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb"


def test_the_reference_tree_has_the_published_root_at_every_size() -> None:
    tree = build(LEAVES)
    assert [tree.root(n).hex() for n in range(1, 9)] == ROOTS
    assert [root(LEAVES[:n]).hex() for n in range(1, 9)] == ROOTS
    assert root([]) == EMPTY_ROOT == tree.root(0)


@pytest.mark.parametrize(("index", "size", "path"), INCLUSION_PROOFS)
def test_the_reference_tree_gives_and_accepts_the_published_inclusion_proofs(
    index: int, size: int, path: list[str]
) -> None:
    assert hexes(build(LEAVES).inclusion_proof(index, size)) == path
    assert verify_inclusion(LEAVES[index], index, size, unhex(path), bytes.fromhex(ROOTS[size - 1]))


@pytest.mark.parametrize(("old", "new", "proof"), CONSISTENCY_PROOFS)
def test_the_reference_tree_gives_and_accepts_the_published_consistency_proofs(
    old: int, new: int, proof: list[str]
) -> None:
    assert hexes(build(LEAVES).consistency_proof(old, new)) == proof
    old_root, new_root = bytes.fromhex(ROOTS[old - 1]), bytes.fromhex(ROOTS[new - 1])
    assert verify_consistency(old, new, old_root, new_root, unhex(proof))


def test_every_root_up_to_72_leaves_is_the_rfc_definition() -> None:
    assert [TREE.root(n) for n in range(73)] == [rfc_mth(DATA[:n]) for n in range(73)]


def test_every_inclusion_proof_up_to_70_leaves_is_the_rfc_path_and_verifies() -> None:
    for size in range(1, 71):
        tree_root = TREE.root(size)
        for index in range(size):
            proof = TREE.inclusion_proof(index, size)
            assert proof == rfc_path(index, DATA[:size]), (index, size)
            assert verify_inclusion(DATA[index], index, size, proof, tree_root), (index, size)


def test_every_consistency_proof_up_to_40_leaves_is_the_rfc_proof_and_verifies() -> None:
    for new in range(1, 41):
        for old in range(1, new + 1):
            proof = TREE.consistency_proof(old, new)
            assert proof == rfc_subproof(old, DATA[:new], True), (old, new)
            assert verify_consistency(old, new, TREE.root(old), TREE.root(new), proof), (old, new)


@given(st.data())
def test_a_flipped_bit_in_an_inclusion_proof_its_leaf_or_its_root_is_refused(data: st.DataObject) -> None:
    size = data.draw(st.integers(1, 70))
    index = data.draw(st.integers(0, size - 1))
    leaf, proof, tree_root = DATA[index], TREE.inclusion_proof(index, size), TREE.root(size)
    target = data.draw(st.sampled_from(["leaf", "root", "proof"] if proof else ["leaf", "root"]))
    bit = data.draw(st.integers(0, 255))
    if target == "leaf":
        leaf = flip(leaf, bit)
    elif target == "root":
        tree_root = flip(tree_root, bit)
    else:
        at = data.draw(st.integers(0, len(proof) - 1))
        proof[at] = flip(proof[at], bit)
    assert not verify_inclusion(leaf, index, size, proof, tree_root)


@given(st.data())
def test_a_flipped_bit_in_a_consistency_proof_or_either_root_is_refused(data: st.DataObject) -> None:
    new = data.draw(st.integers(2, 40))
    old = data.draw(st.integers(1, new - 1))
    proof, old_root, new_root = TREE.consistency_proof(old, new), TREE.root(old), TREE.root(new)
    target = data.draw(st.sampled_from(["old root", "new root", "proof"]))
    bit = data.draw(st.integers(0, 255))
    if target == "old root":
        old_root = flip(old_root, bit)
    elif target == "new root":
        new_root = flip(new_root, bit)
    else:
        at = data.draw(st.integers(0, len(proof) - 1))
        proof[at] = flip(proof[at], bit)
    assert not verify_consistency(old, new, old_root, new_root, proof)


@given(st.integers(1, 70), st.data())
def test_an_inclusion_proof_for_another_index_or_size_or_with_a_hash_added_or_dropped_is_refused(
    size: int, data: st.DataObject
) -> None:
    index = data.draw(st.integers(0, size - 1))
    proof, tree_root = TREE.inclusion_proof(index, size), TREE.root(size)
    other_index = data.draw(st.integers(-1, 80).filter(lambda i: i != index))
    assert not verify_inclusion(DATA[index], other_index, size, proof, tree_root)
    # The size is not bound by the path alone (a proof for 3 leaves passes as one for 4 against the 3-leaf root),
    # which is why a verifier takes size and root together from one signed checkpoint; these probes are the ones
    # transparency-dev/merkle's corruptInclusionProof makes.
    assert not verify_inclusion(DATA[index], index, size * 2, proof, tree_root)
    assert not verify_inclusion(DATA[index], index, size // 2, proof, tree_root)
    assert not verify_inclusion(DATA[index], index, size, [*proof, tree_root], tree_root)
    assert not verify_inclusion(DATA[index], index, size, [tree_root, *proof], tree_root)
    if proof:
        assert not verify_inclusion(DATA[index], index, size, proof[:-1], tree_root)


@given(st.integers(2, 40), st.data())
def test_a_consistency_proof_for_other_sizes_or_with_a_hash_added_or_dropped_is_refused(
    new: int, data: st.DataObject
) -> None:
    old = data.draw(st.integers(1, new - 1))
    proof, old_root, new_root = TREE.consistency_proof(old, new), TREE.root(old), TREE.root(new)
    other_old = data.draw(st.integers(-1, 45).filter(lambda n: n != old))
    assert not verify_consistency(other_old, new, old_root, new_root, proof)
    assert not verify_consistency(old, new * 2, old_root, new_root, proof)  # as above, probes from transparency-dev
    assert not verify_consistency(old, new // 2, old_root, new_root, proof)
    assert not verify_consistency(old, new, new_root, old_root, proof)
    assert not verify_consistency(old, new, old_root, new_root, [*proof, new_root])
    assert not verify_consistency(old, new, old_root, new_root, [old_root, *proof])
    assert not verify_consistency(old, new, old_root, new_root, proof[:-1])


def test_the_trivial_consistency_cases_need_an_empty_proof_and_the_right_roots() -> None:
    some = TREE.root(5)
    assert verify_consistency(0, 5, EMPTY_ROOT, some, [])
    assert verify_consistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [])
    assert verify_consistency(5, 5, some, some, [])
    assert not verify_consistency(0, 5, some, some, [])  # the empty tree has one root
    assert not verify_consistency(5, 5, some, TREE.root(4), [])
    assert not verify_consistency(5, 5, some, some, [some])
    assert not verify_consistency(6, 5, TREE.root(6), some, TREE.consistency_proof(5, 6))  # logs never shrink
    assert TREE.consistency_proof(0, 5) == [] == TREE.consistency_proof(5, 5)


def test_malformed_hashes_are_refused_rather_than_crashing() -> None:
    proof, tree_root = TREE.inclusion_proof(3, 8), TREE.root(8)
    assert not verify_inclusion(DATA[3], 3, 8, [*proof[:-1], proof[-1][:31]], tree_root)
    assert not verify_inclusion(DATA[3], 3, 8, proof, tree_root + b"\x00")
    assert not verify_inclusion(DATA[0], 0, 1, [], b"")
    assert not verify_consistency(3, 8, TREE.root(3), tree_root, [b""] * 4)


@pytest.mark.parametrize(("index", "size"), [(-1, 5), (5, 5), (0, 0), (0, 73)])
def test_an_inclusion_proof_outside_the_tree_is_a_value_error(index: int, size: int) -> None:
    with pytest.raises(ValueError, match="not"):
        TREE.inclusion_proof(index, size)


@pytest.mark.parametrize(("old", "new"), [(-1, 5), (6, 5), (1, 73)])
def test_a_consistency_proof_outside_the_tree_is_a_value_error(old: int, new: int) -> None:
    with pytest.raises(ValueError, match="not within"):
        TREE.consistency_proof(old, new)


def test_a_compact_range_grown_one_leaf_at_a_time_has_the_rfc_root_at_every_size() -> None:
    head = CompactRange()
    assert head.root() == EMPTY_ROOT
    for n, data in enumerate(DATA, start=1):
        head = head.append(data)
        assert head.size == n
        assert len(head.hashes) == bin(n).count("1")
        assert head.root() == rfc_mth(DATA[:n]), n


@given(st.lists(st.integers(0, 20), max_size=8), st.lists(st.binary(max_size=40), max_size=72))
def test_a_compact_range_extended_in_any_chunks_equals_the_root_of_the_whole_list(
    cuts: list[int], leaves: list[bytes]
) -> None:
    head, at = CompactRange(), 0
    for cut in [*cuts, len(leaves)]:
        head = head.extend(leaves[at : at + cut])
        at = min(at + cut, len(leaves))
    assert head.size == len(leaves)
    assert head.root() == rfc_mth(leaves)


def test_a_compact_range_survives_a_round_trip_through_json_and_refuses_a_wrong_shape() -> None:
    head = CompactRange().extend(DATA[:13])
    assert msgspec.json.decode(msgspec.json.encode(head), type=CompactRange) == head
    with pytest.raises(msgspec.ValidationError, match="holds 3 hashes"):
        msgspec.json.decode(msgspec.json.encode({"size": 13, "hashes": []}), type=CompactRange)
    with pytest.raises(ValueError, match="32-byte"):
        CompactRange(size=1, hashes=(b"short",))
