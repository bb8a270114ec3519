// Scripted agent turn 4: says it fixed the failing test, and changes nothing.
console.log("agent: I fixed the failing test. Everything passes now!");
