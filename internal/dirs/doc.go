// Package dirs says where acp keeps its state, in one place for the
// command, the installer and the registry source:
//
//	                data (installs, locks)             cache (registry copy, npm cache)
//	ACP_HOME set    $ACP_HOME                          $ACP_HOME/cache
//	Linux, BSD      $XDG_DATA_HOME/acp                 $XDG_CACHE_HOME/acp
//	                else ~/.local/share/acp            else ~/.cache/acp
//	macOS           $XDG_DATA_HOME/acp                 $XDG_CACHE_HOME/acp
//	                else ~/.local/share/acp            else ~/Library/Caches/acp
//	Windows         %LocalAppData%\acp\data            %LocalAppData%\acp\cache
//
// macOS keeps the data directory of the other Unix systems (as gh and
// other command-line tools do, and as the contract names it), so a dotfile
// setup or a script works the same on both; the cache goes where macOS
// expects caches: it is left out of backups and cleaned when disk runs
// low, and acp rebuilds it. XDG variables count only when absolute, as the
// XDG specification says, and not on Windows, where they are usually left
// over from MSYS or Git Bash.
package dirs
