// Building the page without HTML strings: every name a person typed goes in as text, never parsed as markup.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** Say something to a screen reader (the polite live region) without moving the focus. */
export function announce(text) {
  const live = document.getElementById("live");
  if (live) live.textContent = text;
}

export function showAlert(text) {
  const box = document.getElementById("alert");
  box.textContent = text;
  if (text) setTimeout(() => { if (box.textContent === text) box.textContent = ""; }, 6000);
}
