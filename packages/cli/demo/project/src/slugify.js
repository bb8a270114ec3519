/**
 * Turn a title into a URL slug: lower case, words joined by single hyphens, punctuation
 * dropped. "Hello, World!" -> "hello-world".
 */
export function slugify(title) {
  return title.trim().toLowerCase().replace(/\s+/g, "-");
}
