// The platform's part of the addon's file and package name, as napi-rs names them
// (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, …): index.js loads
// `toolnorm.<platform>.node`, which scripts/build.mjs writes.

/** The platform's name, as napi-rs names it. */
export function platformName() {
  const { platform, arch } = process;
  if (platform === "linux") {
    const libc = process.report?.getReport().header.glibcVersionRuntime ? "gnu" : "musl";
    return arch === "arm" ? `linux-arm-${libc}eabihf` : `linux-${arch}-${libc}`;
  }
  if (platform === "win32") return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}
