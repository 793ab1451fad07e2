// A QR code as SVG, from the vendored encoder (vendor/uqr.mjs: uqr 0.1.3, MIT, a port of Project Nayuki's QR
// generator; see vendor/README.md for why it and how it is pinned). Built as DOM nodes, not markup.
import { encode } from "../vendor/uqr.mjs";

const NS = "http://www.w3.org/2000/svg";

export function qrCode(text, label) {
  const { size, data } = encode(text, { ecc: "M", border: 4 });
  const image = document.createElementNS(NS, "svg");
  image.setAttribute("viewBox", `0 0 ${size} ${size}`);
  image.setAttribute("class", "qr");
  image.setAttribute("role", "img");
  image.setAttribute("aria-label", label);
  image.setAttribute("shape-rendering", "crispEdges");
  const back = document.createElementNS(NS, "rect");
  back.setAttribute("width", size);
  back.setAttribute("height", size);
  back.setAttribute("fill", "#fff");
  let d = "";
  data.forEach((row, y) => row.forEach((dark, x) => { if (dark) d += `M${x} ${y}h1v1h-1z`; }));
  const modules = document.createElementNS(NS, "path");
  modules.setAttribute("d", d);
  modules.setAttribute("fill", "#000");
  image.append(back, modules);
  return image;
}
