-- luacheck editors/nvim (Debian: apt-get install lua-check)
std = "luajit"
globals = { "vim" }
max_line_length = false
