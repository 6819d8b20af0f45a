// electron-builder afterPack hook: flips Electron's fuses in the packaged binary before it is signed.
// The settings are the ones the security review asked for (docs/security.md); tests/app/packaging.test.ts
// runs this hook on a stand-in binary and reads the fuses back.
const path = require('node:path');

/** @param {typeof import('@electron/fuses')} fuses */
function fuseConfig(fuses, { resetAdHocDarwinSignature = false } = {}) {
  const { FuseVersion, FuseV1Options } = fuses;
  return {
    version: FuseVersion.V1,
    // No `ELECTRON_RUN_AS_NODE=1 app` turning the signed binary into a plain Node.
    [FuseV1Options.RunAsNode]: false,
    // Cookies (the browser-mode session cookie included) encrypted at rest with the OS keystore.
    [FuseV1Options.EnableCookieEncryption]: true,
    // No code injected through NODE_OPTIONS or --inspect on a user's machine.
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    // The app code is the signed app.asar, and only that.
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
    [FuseV1Options.OnlyLoadAppFromAsar]: true,
    // Pages loaded from file:// get no extra privileges (fetch of other files, service workers).
    [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
    resetAdHocDarwinSignature,
  };
}

/** Where the Electron executable is inside the packed app of one platform. */
function electronBinary(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  const name = packager.appInfo.productFilename;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return path.join(appOutDir, `${name}.app`);
  if (electronPlatformName === 'win32') return path.join(appOutDir, `${name}.exe`);
  return path.join(appOutDir, packager.executableName);
}

async function afterPack(context) {
  const fuses = require('@electron/fuses');
  // arm64 macOS binaries must be re-signed ad hoc after their bytes change; electron-builder signs properly afterwards.
  const arm64Mac = context.electronPlatformName === 'darwin' && context.arch === 3;
  await fuses.flipFuses(electronBinary(context), fuseConfig(fuses, { resetAdHocDarwinSignature: arm64Mac }));
}

module.exports = afterPack;
module.exports.default = afterPack;
module.exports.fuseConfig = fuseConfig;
module.exports.electronBinary = electronBinary;
