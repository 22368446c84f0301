package appserver

// handlers: every method this server serves, by name. (The type and the
// dispatch are in server.go.)
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"thread/start":   (*conn).threadStart,
		"thread/resume":  (*conn).threadResume,
		"thread/read":    (*conn).threadRead,
		"thread/list":    (*conn).threadList,
		"turn/start":     (*conn).turnStart,
		"turn/interrupt": (*conn).turnInterrupt,
		"thread/fork":    (*conn).threadFork,
		"model/list":     (*conn).modelList,
		"config/read":    (*conn).configRead,
		"command/exec":   (*conn).commandExec,

		"command/exec/write":     (*conn).commandExecWrite,
		"command/exec/resize":    (*conn).commandExecResize,
		"command/exec/terminate": (*conn).commandExecTerminate,

		"experimentalFeature/list": (*conn).experimentalFeatureList,
		"turn/steer":               (*conn).turnSteer,

		"thread/archive":         (*conn).threadArchive,
		"thread/unarchive":       (*conn).threadUnarchive,
		"thread/name/set":        (*conn).threadNameSet,
		"thread/unsubscribe":     (*conn).threadUnsubscribe,
		"thread/loaded/list":     (*conn).threadLoadedList,
		"thread/settings/update": (*conn).threadSettingsUpdate,
		"thread/turns/list":      (*conn).threadTurnsList,
		"thread/items/list":      (*conn).threadItemsList,
		"thread/goal/set":        (*conn).threadGoalSet,
		"thread/goal/clear":      (*conn).threadGoalClear,
		"thread/compact/start":   (*conn).threadCompactStart,
		"thread/goal/get":        (*conn).threadGoalGet,
		"review/start":           (*conn).reviewStart,

		"thread/backgroundTerminals/list": (*conn).backgroundTerminalsList,

		// thread/delete, search, side conversations, terminals (threads).
		"thread/backgroundTerminals/clean":     (*conn).backgroundTerminalsClean,
		"thread/backgroundTerminals/terminate": (*conn).backgroundTerminalsTerminate,
		"thread/delete":                        (*conn).threadDelete,
		"thread/search":                        (*conn).threadSearch,
		"thread/inject_items":                  (*conn).threadInjectItems,

		// Start-up calls of Codex's own clients (startup.go).
		"account/read":            (*conn).accountRead,
		"configRequirements/read": (*conn).configRequirementsRead,
		"hooks/list":              (*conn).hooksList,
		"collaborationMode/list":  (*conn).collaborationModeList,
		"mcpServerStatus/list":    (*conn).mcpServerStatusList,
		"plugin/installed":        (*conn).pluginInstalled,
		"skills/list":             (*conn).skillsList,

		"account/bedrock/checkGovCloudRequirements": (*conn).bedrockGovCloud,

		"config/batchWrite":          (*conn).configBatchWrite,
		"config/value/write":         (*conn).configValueWrite,
		"skills/config/write":        (*conn).skillsConfigWrite,
		"permissionProfile/list":     (*conn).permissionProfileList,
		"plugin/list":                (*conn).pluginList,
		"externalAgentConfig/detect": (*conn).externalAgentConfigDetect,
		"account/logout":             (*conn).accountLogout,
	}
}
