topo --jsn
