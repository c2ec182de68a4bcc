help topo
