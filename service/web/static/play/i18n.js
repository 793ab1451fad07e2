// The message catalogues: every string the pages show comes from messages/<lang>.json through t().
export const LANGUAGES = ["en", "ne"];
const KEY = "rd.lang";
let words = {};
let current = "en";

/** The language chosen before (remembered), else the browser's first that we have, else English. */
export function preferredLanguage() {
  const saved = localStorage.getItem(KEY);
  if (LANGUAGES.includes(saved)) return saved;
  const asked = navigator.languages || [navigator.language || "en"];
  for (const tag of asked) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function useLanguage(lang) {
  const reply = await fetch(`/play/static/play/messages/${lang}.json`, { credentials: "omit" });
  words = await reply.json();
  current = lang;
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
}

export function language() {
  return current;
}

/** The message `key` with its {placeholders} filled in; numbers in the language's own digits. */
export function t(key, params = {}) {
  const text = Object.hasOwn(words, key) ? words[key] : key;
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    const value = params[name];
    return typeof value === "number" ? num(value) : String(value ?? "");
  });
}

const DEVANAGARI_DIGITS = "०१२३४५६७८९";

/** A number in the language's digits (Nepali writes ०-९), by our own table rather than the browser's locale data,
 * which a trimmed build may lack. */
export function num(value) {
  const text = String(value);
  return current === "ne" ? text.replace(/[0-9]/g, (d) => DEVANAGARI_DIGITS[Number(d)]) : text;
}

/** Fill every [data-t] element's text and every [data-t-label] element's aria-label under `root`. */
export function translate(root) {
  for (const el of root.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  for (const el of root.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", t(el.dataset.tLabel));
  document.title = t(document.body.dataset.title || "title");
}
