// Swagger UI's "Try it out" for the signed routes, a development aid (the service leaves this file out in production):
// an operator id and secret typed into the form this adds are kept in this page's memory only, never stored or sent,
// and each request is signed as docs/api.md#signing-requests says (the same bytes as docs/clients/signed-fetch.ts).
"use strict";

(() => {
  const typed = { operatorId: "", secret: "" };

  function field(label, type, name) {
    const wrap = document.createElement("label");
    wrap.textContent = label + " ";
    const input = document.createElement("input");
    input.type = type;
    input.name = name;
    input.autocomplete = "off";
    input.addEventListener("input", () => { typed[name] = input.value; });
    wrap.append(input);
    return wrap;
  }

  function form() {
    const box = document.createElement("form");
    box.id = "reddog-signing";
    box.setAttribute("aria-label", "Sign Try it out requests");
    box.style.cssText = "padding:8px 20px;background:#fff8e1;border-bottom:1px solid #d0b000;font-family:sans-serif";
    box.addEventListener("submit", (event) => event.preventDefault());
    const note = document.createElement("span");
    note.textContent = "Development only: sign \u201cTry it out\u201d requests (kept in this page's memory, never stored). ";
    box.append(note, field("Operator id", "text", "operatorId"), " ", field("Secret", "password", "secret"));
    document.body.prepend(box);
  }

  async function hmacHex(secret, message) {
    const key = await crypto.subtle.importKey(
      "raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
    return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function header(headers, name) {
    const found = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
    return found === undefined ? "" : String(headers[found]);
  }

  // Swagger UI's requestInterceptor: the request as it will be sent ({url, method, headers, body}), signed.
  window.reddogSign = async (request) => {
    const url = new URL(request.url, window.location.href);
    const signed = url.origin === window.location.origin && url.pathname.startsWith("/v1/")
      && !url.pathname.startsWith("/v1/friends/");
    if (!signed || typed.operatorId === "" || typed.secret === "") return request;
    const method = String(request.method || "GET").toUpperCase();
    const key = method === "POST" ? header(request.headers, "Idempotency-Key") : "";
    const timestamp = String(Math.floor(Date.now() / 1000));
    const body = typeof request.body === "string" ? request.body : "";
    const message = `${timestamp}\n${method}\n${url.pathname}${url.search}\n${key}\n${body}`;
    request.headers["X-Operator-Id"] = typed.operatorId;
    request.headers["X-Timestamp"] = timestamp;
    request.headers["X-Signature"] = await hmacHex(typed.secret, new TextEncoder().encode(message));
    return request;
  };

  document.addEventListener("DOMContentLoaded", form);
})();
