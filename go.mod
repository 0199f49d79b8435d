module github.com/urlfetch/urlfetch

go 1.26
