// an uncaught exception: qjs prints it to stderr and exits with status 1
function inner(o) { return o.missing.field; }
console.log("before the exception");
inner({});
console.log("not reached");
