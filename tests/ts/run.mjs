// node run.mjs BASE OPERATOR SECRET: play one round with the compiled play.js and print what it saw as JSON.
import { play } from "./play.js";

const [base, operator, secret] = process.argv.slice(2);
console.log(JSON.stringify(await play(base, operator, secret)));
