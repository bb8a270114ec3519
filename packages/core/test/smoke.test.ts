import { expect, test } from "vitest";
import { CORE_VERSION } from "../src/index.js";

test("core exports its version", () => {
  expect(CORE_VERSION).toBe("0.1.0");
});
