// Sounds, off until the player turns them on (the choice is remembered). Tones are made by WebAudio in the page:
// no sound files to load or license, and nothing plays before a tap, as browsers require.
const KEY = "rd.sound";
const TONES = {
  deal: [[660, 0.05]],
  turn: [[520, 0.08], [780, 0.12]],
  win: [[523, 0.1], [659, 0.1], [784, 0.18]],
  lose: [[330, 0.12], [247, 0.2]],
};
let context = null;

export function soundOn() {
  return localStorage.getItem(KEY) === "on";
}

export function setSound(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on && context === null && window.AudioContext) context = new AudioContext();
}

export function play(name) {
  if (!soundOn() || !TONES[name]) return;
  if (context === null && window.AudioContext) context = new AudioContext();
  if (context === null) return;
  let at = context.currentTime;
  for (const [frequency, seconds] of TONES[name]) {
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.12, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
    tone.connect(gain).connect(context.destination);
    tone.start(at);
    tone.stop(at + seconds);
    at += seconds;
  }
}
