package extract

const agentScript = "#!/bin/sh\necho hello-from-agent \"$@\"\n"
