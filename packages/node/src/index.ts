export * from "./workspace/index.js";
