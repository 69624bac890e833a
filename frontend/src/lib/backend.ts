// The one seam between the UI and Go. In the desktop app, Wails injects
// window.go.app.<Service>.<Method>; the UI only ever calls through this
// interface so components can be tested with a fake and driven in a plain
// browser against a test bridge.

export interface AppInfo {
  version: string
  provider: string
  model: string
  dataDir: string
  warnings: string[]
}

export interface Backend {
  appInfo(): Promise<AppInfo>
}

type WailsWindow = Window & {
  go?: { app?: { Shell?: { Info(): Promise<AppInfo> } } }
}

export function createBackend(w: WailsWindow = window as WailsWindow): Backend {
  return {
    async appInfo() {
      const shell = w.go?.app?.Shell
      if (!shell) {
        throw new Error('Jarvis backend not connected (start the desktop app, or the test bridge)')
      }
      return shell.Info()
    },
  }
}
