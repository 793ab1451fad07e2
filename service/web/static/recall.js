// Checks this replay in the browser, with nothing but WebCrypto: no framework, no network.
// 1. the shoe's commitment is SHA-256(salt || order), and every card shown sits at its place in that order;
// 2. the checkpoint is signed by the service's Ed25519 key (c2sp.org/signed-note) for this table's log;
// 3. every audit record of the round hashes to what the proof says (SHA-256(prev_hash || body)), names this round,
//    and the cards shown are the cards those records dealt;
// 4. every record is in the checkpoint's Merkle tree (RFC 9162 section 2.1.3.2).
"use strict";
(function () {
  const evidence = JSON.parse(document.getElementById("evidence").textContent);
  const utf8 = new TextEncoder();
  const b64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const fromHex = (text) => new Uint8Array((text.match(/../g) || []).map((h) => parseInt(h, 16)));
  const toHex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const concat = (...parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  };
  const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const sha256 = async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", data));

  function mark(name, state, detail) {
    const box = document.querySelector(`[data-check="${name}"]`);
    box.dataset.state = state;
    box.querySelector(".verdict").textContent =
      { verified: "verified \u2713", failed: "FAILED \u2717", pending: "not yet", unsupported: "not checked" }[state];
    if (detail) box.querySelector(".detail").textContent = detail;
    return state;
  }

  async function checkCommitment() {
    const reveal = evidence.reveal;
    if (!reveal) {
      mark("cards", "pending", "The shoe is still in play: its order is published when it is retired.");
      return mark("commitment", "pending", "The shoe is still in play: its salt is published when it is retired.");
    }
    const digest = toHex(await sha256(concat(fromHex(reveal.salt), utf8.encode(reveal.order))));
    const committed = digest === evidence.commitment;
    mark("commitment", committed ? "verified" : "failed", `SHA-256(salt || order) = ${digest}`);
    const placed = evidence.cards.every((c) => reveal.order.substr(2 * c.shoe_index, 2) === c.card);
    return mark("cards", committed && placed ? "verified" : "failed",
      placed ? "Every card shown is at its place in the committed order." : "A card is not where the order says.");
  }

  async function openCheckpoint(note) {
    const split = note.lastIndexOf("\n\n");
    const text = note.slice(0, split + 1);
    const lines = note.slice(split + 2, -1).split("\n");
    const [origin, size, root] = text.split("\n");
    const key = evidence.verifier;
    const ours = lines.map((l) => l.split(" ")).filter((p) => p[0] === "\u2014" && p[1] === key.name);
    if (ours.length === 0) throw new Error(`no signature by ${key.name}`);
    const blob = b64(ours[0][2]);
    if (toHex(blob.slice(0, 4)) !== key.key_id) throw new Error("the signature is by another key");
    const publicKey = await crypto.subtle.importKey("raw", b64(key.public_key), { name: "Ed25519" }, false, ["verify"]);
    const good = await crypto.subtle.verify({ name: "Ed25519" }, publicKey, blob.slice(4), utf8.encode(text));
    if (!good) throw new Error("the checkpoint's signature does not verify");
    if (origin !== `${key.name}/table/${evidence.table_id}`) throw new Error(`the checkpoint is of ${origin}`);
    return { size: Number(size), root: b64(root) };
  }

  async function node(left, right) { return sha256(concat(new Uint8Array([1]), left, right)); }

  async function included(leafData, index, size, path, root) {  // RFC 9162 section 2.1.3.2
    if (index >= size) return false;
    let fn = index, sn = size - 1, r = await sha256(concat(new Uint8Array([0]), leafData));
    for (const p of path) {
      if (sn === 0) return false;
      if (fn % 2 === 1 || fn === sn) {
        r = await node(p, r);
        while (fn % 2 === 0 && fn !== 0) { fn = Math.floor(fn / 2); sn = Math.floor(sn / 2); }
      } else {
        r = await node(r, p);
      }
      fn = Math.floor(fn / 2); sn = Math.floor(sn / 2);
    }
    return sn === 0 && equal(r, root);
  }

  async function checkRecords(proof) {
    const dealt = [];
    for (const record of proof.records) {
      const body = b64(record.body);
      if (!equal(await sha256(concat(b64(record.prev_hash), body)), b64(record.record_hash))) return false;
      const parsed = JSON.parse(new TextDecoder().decode(body));
      if (parsed.seq !== record.seq || parsed.table_id !== evidence.table_id) return false;
      if (parsed.event.round_id !== evidence.round_id) return false;
      if (parsed.event.kind === "card_dealt") dealt.push(`${parsed.event.position}:${parsed.event.card}`);
    }
    return dealt.join(",") === evidence.cards.map((c) => `${c.position}:${c.card}`).join(",");
  }

  async function checkProof() {
    const proof = evidence.proof;
    let checkpoint;
    try {
      checkpoint = await openCheckpoint(proof.checkpoint);
    } catch (error) {
      const state = error.name === "NotSupportedError" ? "unsupported" : "failed";
      mark("signature", state, String(error.message || error));
      mark("records", "pending"); mark("inclusion", "pending");
      return state;
    }
    mark("signature", "verified", `Checkpoint of ${checkpoint.size} records, signed by ${evidence.verifier.name}.`);
    const recordsOk = await checkRecords(proof);
    mark("records", recordsOk ? "verified" : "failed",
      `${proof.records.length} records; each hash recomputed from its bytes; the cards shown are the cards dealt.`);
    let all = true;
    for (const r of proof.records) {
      all = all && await included(b64(r.record_hash), r.leaf_index, checkpoint.size, r.hashes.map(b64), checkpoint.root);
    }
    mark("inclusion", all ? "verified" : "failed",
      `Each record's Merkle path leads to the root of the signed checkpoint (${checkpoint.size} records).`);
    return recordsOk && all ? "verified" : "failed";
  }

  async function main() {
    const summary = document.getElementById("summary");
    if (!window.crypto || !crypto.subtle) {
      summary.dataset.state = "unsupported";
      summary.textContent = "This browser cannot check the replay here (WebCrypto needs a secure https page).";
      return;
    }
    const states = [await checkCommitment(), await checkProof()];
    const state = states.includes("failed") ? "failed" : states.every((s) => s === "verified") ? "verified" : "partly";
    summary.dataset.state = state;
    summary.textContent = {
      verified: "Every check passed: this replay is the round as it was recorded and signed.",
      failed: "A check FAILED: this page does not match the signed record of the round.",
      partly: "The checks that can be made now passed; the rest wait for the shoe to be retired.",
    }[state];
  }

  main().catch((error) => {
    const summary = document.getElementById("summary");
    summary.dataset.state = "failed";
    summary.textContent = `A check could not run: ${error}`;
  });
})();
