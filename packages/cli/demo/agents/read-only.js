// Scripted agent turn 2: only reads the project and answers a question.
import { readdirSync, readFileSync } from "node:fs";

const files = readdirSync("src");
const source = readFileSync("src/slugify.js", "utf8");
const lines = source.split("\n").length;
console.log(`agent: src/ holds ${files.join(", ")}; slugify.js is ${lines} lines long. No edits.`);
