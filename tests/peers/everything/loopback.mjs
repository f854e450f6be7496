// Preloaded (`node --import`) into server-everything, which listens on every interface: a server
// given only a port listens on 127.0.0.1, as every server the tests start does.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const rest = typeof args[1] === "string" ? args.slice(2) : args.slice(1);
    return listen.call(this, port, "127.0.0.1", ...rest);
  }
  return listen.apply(this, args);
};
