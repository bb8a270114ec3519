/** Validation of profile-store inputs: the value is checked, then returned unchanged. */
export { invalid, validated } from "../../validate.js";
