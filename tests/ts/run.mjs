// node run.mjs BASE OPERATOR SECRET: play one round with the compiled play.js and print it as JSON.
import { play } from "./play.js";

const [base, operator, secret] = process.argv.slice(2);
const round = await play(base, operator, secret);
console.log(JSON.stringify(round));
