/**
 * The profile, ladder and HUD methods as the stdio bridge serves them (issue 35 item 4):
 * given `store_dir`, each reads the record set seen from `options.dir` (for the HUD,
 * `options.dir` else `state.dir`) in the profile store `facts.run_check` records into —
 * `@turngate/node`'s `ProfileStore` (harn-verification.md §1.5, §6.2), the same reading as
 * `ProfileStore.matches` / `ladderPlan` / `hudModel` — so a Python or Go host never parses
 * the store file itself. Without `store_dir` they are the pure methods.
 */
import { ProfileStore } from "@turngate/node";
import { storeReadingProfileMethods } from "./facts-profiles.js";

/** `facts.profile_matches`, `facts.ladder_plan`, `facts.hud_model`, `facts.hud_text` with the store. */
export const factsProfileStoreMethods = storeReadingProfileMethods((storeDir, dir) =>
  new ProfileStore(storeDir).compiled(dir),
);
