// The header's switches, shared by every page: language (English / नेपाली), sound (off until asked), four colours.
import { fourColours, setFourColours } from "./cards.js";
import { LANGUAGES, language, t, useLanguage } from "./i18n.js";
import { setSound, soundOn } from "./sound.js";

export function settingsBar(redraw) {
  const lang = document.getElementById("lang");
  const sound = document.getElementById("sound");
  const colours = document.getElementById("colours");
  const label = () => {
    const other = LANGUAGES.find((l) => l !== language());
    lang.textContent = t(`language.${other}`);
    lang.setAttribute("lang", other);
    if (sound) {
      sound.textContent = soundOn() ? t("sound.on") : t("sound.off");
      sound.setAttribute("aria-pressed", String(soundOn()));
    }
    colours.textContent = t("colours.four");
    colours.setAttribute("aria-pressed", String(fourColours()));
  };
  lang.addEventListener("click", async () => {
    await useLanguage(LANGUAGES.find((l) => l !== language()));
    label();
    redraw();
  });
  if (sound) sound.addEventListener("click", () => { setSound(!soundOn()); label(); });
  colours.addEventListener("click", () => { setFourColours(!fourColours()); label(); redraw(); });
  label();
  return label;
}
